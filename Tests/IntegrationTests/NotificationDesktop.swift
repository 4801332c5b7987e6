import Foundation

/// A person's desktop in miniature: an X server (Xvfb, white, `width`×`height`), a private session
/// bus and a real notification server on both (Debian's dunst, with a fixed style so a screenshot
/// reads the same everywhere). Everything lives in a scratch directory and ends with `stop()`.
final class NotificationDesktop {
    static let xvfb = "/usr/bin/Xvfb"
    static let dunst = "/usr/bin/dunst"
    static let dunstctl = "/usr/bin/dunstctl"
    static let dbusDaemon = "/usr/bin/dbus-daemon"
    static let importTool = "/usr/bin/import"
    static let identify = "/usr/bin/identify"
    static let convert = "/usr/bin/convert"
    static var available: Bool {
        [xvfb, dunst, dunstctl, dbusDaemon, importTool, identify, convert, "/usr/bin/dbus-send"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
    static let skipMessage = "needs Xvfb, dunst, imagemagick and dbus (scripts/packages.txt)"

    static let width = 720
    static let height = 240
    /// Where dunst draws: the top-right corner, `offset` from the edges, `notificationWidth` wide.
    static let offset = 16
    static let notificationWidth = 440

    /// dunst's style: a readable font, no icon, nothing expires (the screenshot is taken after the
    /// alerts arrived), the colours of Debian's default configuration.
    static let dunstrc = """
        [global]
            font = DejaVu Sans 11
            width = \(notificationWidth)
            height = 200
            origin = top-right
            offset = \(offset)x\(offset)
            padding = 10
            horizontal_padding = 12
            frame_width = 2
            frame_color = "#aaaaaa"
            gap_size = 0
            separator_height = 2
            separator_color = "#aaaaaa"
            sort = yes
            markup = full
            format = "<b>%s</b>\\n%b"
            alignment = left
            ellipsize = end
            icon_position = off
            show_indicators = no
            show_age_threshold = -1
            history_length = 50
        [urgency_low]
            background = "#222222"
            foreground = "#dddddd"
            timeout = 0
        [urgency_normal]
            background = "#285577"
            foreground = "#ffffff"
            timeout = 0
        [urgency_critical]
            background = "#900000"
            foreground = "#ffffff"
            frame_color = "#ff0000"
            timeout = 0
        """

    let scratch: Scratch
    /// `:N`, chosen by Xvfb among the free ones.
    let display: String
    let busAddress: String
    private var processes: [Process] = []

    init() throws {
        scratch = try Scratch("aiden-desktop")
        let (xvfb, number) = try Self.startXvfb(scratch)
        let bus: Process
        let address: String
        do {
            (bus, address) = try Self.startBus(scratch)
        } catch {
            Self.end(xvfb)
            throw error
        }
        display = ":\(number)"
        busAddress = address
        processes = [xvfb, bus]
        do {
            // The context menu (`dunstctl context`) runs "dmenu": here a script that picks the action whose label
            // `press(_:)` wrote, as a person picks a button.
            let picker = scratch.path + "/pick"
            try "#!/bin/sh\nexec grep -m1 -F \"#$(cat '\(scratch.path)/pick-label') (\"\n".write(
                toFile: picker, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: picker)
            let rc = Self.dunstrc.replacingOccurrences(
                of: "[global]\n", with: "[global]\n    dmenu = \(picker)\n")
            try rc.write(toFile: scratch.path + "/dunstrc", atomically: true, encoding: .utf8)
            let dunst = Process()
            dunst.executableURL = URL(fileURLWithPath: Self.dunst)
            dunst.arguments = ["-config", scratch.path + "/dunstrc"]
            dunst.environment = environment.merging(["HOME": scratch.path, "PATH": "/usr/bin:/bin"]) { $1 }
            let log = try FileHandle(forWritingTo: Self.logFile(scratch, "dunst.log"))
            dunst.standardOutput = log
            dunst.standardError = log
            try dunst.run()
            processes.append(dunst)
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline, displayedCount() == nil { usleep(50_000) }
            guard displayedCount() != nil else {
                throw IntegrationError("dunst did not come up: \(self.log("dunst.log"))")
            }
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// What a client on this desktop gets: the display and the session bus.
    var environment: [String: String] { ["DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": busAddress] }

    /// Ends the server, the bus and the X server. They inherit the test process's blocked SIGTERM:
    /// only SIGKILL ends them.
    func stop() {
        for process in processes.reversed() { Self.end(process) }
        processes = []
    }

    private static func end(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func dunstctl(_ arguments: [String]) throws -> CommandResult {
        try runCommand(Self.dunstctl, arguments, environment: environment, timeoutSeconds: 10)
    }

    /// How many notifications dunst shows now.
    func displayedCount() -> Int? {
        guard let result = try? dunstctl(["count", "displayed"]), result.status == 0 else { return nil }
        return Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Presses the button labelled `label` of a displayed notification, through dunst's context menu (what
    /// a person does with the mouse): dunst sends `ActionInvoked` to the client that posted it.
    func press(_ label: String) throws {
        try label.write(toFile: scratch.path + "/pick-label", atomically: true, encoding: .utf8)
        let result = try dunstctl(["context"])
        guard result.status == 0 else { throw IntegrationError("dunstctl context: \(result.error)") }
    }

    /// One notification as dunst keeps it in its history.
    struct Notification: Equatable {
        var appName: String
        var summary: String
        var body: String
        var category: String
        var id: Int = 0
        /// The `value` hint dunst drew (-1: none).
        var progress: Int = -1
    }

    /// Closes what is shown, so it moves to the history, and returns the history (newest first).
    func closeAllAndReadHistory() throws -> [Notification] {
        _ = try dunstctl(["close-all"])
        let result = try dunstctl(["history"])
        guard result.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
            let data = object["data"] as? [[[String: Any]]]
        else { throw IntegrationError("dunstctl history: \(result.status) \(result.output) \(result.error)") }
        func text(_ entry: [String: Any], _ key: String) -> String {
            (entry[key] as? [String: Any])?["data"] as? String ?? ""
        }
        func number(_ entry: [String: Any], _ key: String) -> Int {
            (entry[key] as? [String: Any])?["data"] as? Int ?? -1
        }
        return data.flatMap { $0 }.map {
            Notification(
                appName: text($0, "appname"), summary: text($0, "summary"), body: text($0, "body"),
                category: text($0, "category"), id: number($0, "id"), progress: number($0, "progress"))
        }
    }

    /// The whole screen as a person sees it, as a PNG.
    func screenshot(to path: String) throws {
        let result = try runCommand(
            Self.importTool, ["-display", display, "-window", "root", path], environment: environment)
        guard result.status == 0 else { throw IntegrationError("import: \(result.error)") }
    }

    func log(_ name: String) -> String {
        (try? String(contentsOfFile: scratch.path + "/" + name, encoding: .utf8)) ?? ""
    }

    private static func logFile(_ scratch: Scratch, _ name: String) -> URL {
        let path = scratch.path + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return URL(fileURLWithPath: path)
    }

    /// Xvfb on the first free display; `-displayfd` writes the number once it accepts clients.
    private static func startXvfb(_ scratch: Scratch) throws -> (Process, Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: xvfb)
        process.arguments = ["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp", "-wr"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: logFile(scratch, "xvfb.log"))
        try process.run()
        let line = readLine(output, seconds: 15)
        guard let number = Int(line) else {
            end(process)
            throw IntegrationError("Xvfb gave no display number ('\(line)')")
        }
        return (process, number)
    }

    /// A private session bus (the standard session configuration) on a socket in the scratch directory.
    private static func startBus(_ scratch: Scratch) throws -> (Process, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dbusDaemon)
        process.arguments = [
            "--session", "--nofork", "--nopidfile", "--print-address=1", "--address=unix:path=\(scratch.path)/bus",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let address = readLine(output, seconds: 10)
        guard address.hasPrefix("unix:") else {
            end(process)
            throw IntegrationError("dbus-daemon gave no address ('\(address)')")
        }
        return (process, address)
    }

    /// The first line a process writes to `pipe`, waiting at most `seconds`.
    private static func readLine(_ pipe: Pipe, seconds: Double) -> String {
        let collected = Mutexed(Data())
        let reader = DispatchGroup()
        DispatchQueue.global().async(group: reader) {
            while !collected.get().contains(0x0A) {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                collected.update { $0.append(chunk) }
            }
        }
        _ = reader.wait(timeout: .now() + seconds)
        let data = collected.get()
        let line = data.prefix { $0 != 0x0A }
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }
}
