import Foundation

/// A person's Wayland desktop in miniature, run as `nobody` as a person's session would be: a private session
/// bus (`dbus-run-session`), a headless sway (wlroots' headless backend, the pixman renderer, no input
/// devices) and Debian's mako in it as the notification server, started by sway as a session starts it; with a
/// waybar configuration, waybar too (its `tray` module is the session's StatusNotifierWatcher and host).
///
/// Started with `cleanSpawn` (an empty signal mask), in a process group of its own: the test's threads block
/// nearly every signal, and a desktop started with that mask never reaps what it `exec`s (SIGCHLD) and mako
/// stopped answering its bus calls; the group lets `stop()` end the bus, sway and mako together.
final class WaylandDesktop {
    static let sway = "/usr/bin/sway"
    static let mako = "/usr/bin/mako"
    static let makoctl = "/usr/bin/makoctl"
    static let dbusRunSession = "/usr/bin/dbus-run-session"
    static let setpriv = "/usr/bin/setpriv"
    static let waybar = "/usr/bin/waybar"
    static let busctl = "/usr/bin/busctl"
    static let wayvnc = "/usr/bin/wayvnc"
    /// The client that drives wayvnc's pointer (RFB over its Unix socket), shared with scripts/screenshots.
    static let vncInput = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/vnc-input").path
    static let nobody: uid_t = 65534
    /// Root, to hand the desktop (and the phone) to `nobody`; and the programs.
    static var available: Bool {
        geteuid() == 0
            && [sway, mako, makoctl, dbusRunSession, setpriv].allSatisfy {
                FileManager.default.isExecutableFile(atPath: $0)
            }
    }
    static let skipMessage = "needs root (the desktop runs as nobody), sway, mako and dbus (scripts/packages.txt)"
    /// What runs a program as the desktop's user.
    static let asNobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]

    let scratch: Scratch
    let runtimeDirectory: String
    private(set) var busAddress = ""
    private var group: pid_t = 0
    /// wayvnc's process group, once `click` started it.
    private var hands: pid_t = 0

    /// `waybar`: the bar's configuration (JSON, with a `tray` module), or none for no bar; the bar has started
    /// once its tray owns `org.kde.StatusNotifierWatcher`.
    init(waybar: String? = nil) throws {
        scratch = try Scratch("aiden-wayland")
        runtimeDirectory = scratch.path + "/run"
        let home = scratch.path + "/home"
        for (path, mode) in [(runtimeDirectory, mode_t(0o700)), (home, mode_t(0o700))] {
            guard mkdir(path, mode) == 0, chown(path, Self.nobody, gid_t(Self.nobody)) == 0 else {
                throw IntegrationError("\(path): \(String(cString: strerror(errno)))")
            }
        }
        chmod(scratch.path, 0o755)
        // sway starts mako as a session does, and says which bus it got (a file nobody may write: in home).
        let busFile = home + "/bus"
        let config = scratch.path + "/sway.config"
        var lines = [
            "exec \(Self.mako)",
            "exec sh -c 'printf %s \"$DBUS_SESSION_BUS_ADDRESS\" > \(busFile).new && mv \(busFile).new \(busFile)'",
        ]
        if let waybar {
            let barConfig = scratch.path + "/waybar.json"
            try waybar.write(toFile: barConfig, atomically: true, encoding: .utf8)
            lines.append("exec \(Self.waybar) -c \(barConfig) > \(home)/waybar.log 2>&1")
        }
        try lines.joined(separator: "\n").write(toFile: config, atomically: true, encoding: .utf8)
        group = try cleanSpawn(
            Self.asNobody + [Self.dbusRunSession, "--", Self.sway, "-c", config],
            environment: [
                "HOME=\(home)", "XDG_RUNTIME_DIR=\(runtimeDirectory)", "PATH=/usr/bin:/bin", "LANG=C.UTF-8",
                "WLR_BACKENDS=headless", "WLR_RENDERER=pixman", "WLR_LIBINPUT_NO_DEVICES=1",
                // GTK programs (waybar) start no accessibility bus of their own.
                "NO_AT_BRIDGE=1",
            ],
            log: scratch.path + "/sway.log", newGroup: true)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if busAddress.isEmpty, let address = try? String(contentsOfFile: busFile, encoding: .utf8) {
                busAddress = address
            }
            if !busAddress.isEmpty, (try? makoctl(["list"]))?.status == 0,
                waybar == nil || (try? owner(of: Self.watcherName)) != nil
            {
                return
            }
            usleep(50_000)
        }
        stop()
        let what = waybar == nil ? "sway and mako" : "sway, mako and waybar's tray (the StatusNotifierWatcher)"
        throw IntegrationError("\(what) did not come up (bus \(busAddress)): \(log) \(waybarLog)")
    }

    deinit { stop() }

    /// What a client in this session gets: its bus.
    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": busAddress] }

    var log: String { (try? String(contentsOfFile: scratch.path + "/sway.log", encoding: .utf8)) ?? "" }
    var waybarLog: String { (try? String(contentsOfFile: scratch.path + "/home/waybar.log", encoding: .utf8)) ?? "" }

    /// Ends the bus, sway, mako and waybar (their group; mako and waybar end with sway), and wayvnc.
    func stop() {
        endGroup(&hands)
        endGroup(&group)
    }

    /// Presses and releases `button` (left, middle, right) at `x`, `y`, as a person's click: the headless seat has
    /// no pointer, so wayvnc gives it one (started on the first click, on a Unix socket in the runtime directory,
    /// as the desktop's user), driven by `scripts/vnc-input`. A negative coordinate counts from the right or
    /// bottom edge.
    func click(x: Int, y: Int, button: String = "left") throws {
        let socket = runtimeDirectory + "/vnc.sock"
        if hands == 0 {
            let display = try FileManager.default.contentsOfDirectory(atPath: runtimeDirectory).first {
                $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock")
            }
            guard let display else { throw IntegrationError("no Wayland socket in \(runtimeDirectory)") }
            hands = try cleanSpawn(
                Self.asNobody + [Self.wayvnc, "--unix-socket", socket],
                environment: [
                    "HOME=\(scratch.path)/home", "XDG_RUNTIME_DIR=\(runtimeDirectory)", "WAYLAND_DISPLAY=\(display)",
                    "PATH=/usr/bin:/bin", "LANG=C.UTF-8",
                ],
                log: scratch.path + "/wayvnc.log", newGroup: true)
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, !FileManager.default.fileExists(atPath: socket) { usleep(50_000) }
        }
        let result = try runCommand("/usr/bin/python3", [Self.vncInput, socket, "click:\(x),\(y),\(button)"])
        guard result.status == 0 else {
            let log = (try? String(contentsOfFile: scratch.path + "/wayvnc.log", encoding: .utf8)) ?? ""
            throw IntegrationError("vnc-input: \(result.error) (wayvnc: \(log))")
        }
    }

    func makoctl(_ arguments: [String]) throws -> CommandResult {
        try runCommand(
            Self.asNobody[0], Array(Self.asNobody.dropFirst()) + [Self.makoctl] + arguments,
            environment: environment, timeoutSeconds: 10)
    }

    /// One notification as mako shows it now.
    struct Notification: Equatable {
        var id: Int
        var appName: String
        var summary: String
        var body: String
        /// Action key → label.
        var actions: [String: String]
    }

    /// What mako shows now (`makoctl list`), newest first.
    func shown() throws -> [Notification] {
        let result = try makoctl(["list"])
        guard result.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
            let data = object["data"] as? [[[String: Any]]]
        else { throw IntegrationError("makoctl list: \(result.status) \(result.output) \(result.error)") }
        func value(_ entry: [String: Any], _ key: String) -> Any? { (entry[key] as? [String: Any])?["data"] }
        return data.flatMap { $0 }.map {
            Notification(
                id: value($0, "id") as? Int ?? -1, appName: value($0, "app-name") as? String ?? "",
                summary: value($0, "summary") as? String ?? "", body: value($0, "body") as? String ?? "",
                actions: value($0, "actions") as? [String: String] ?? [:])
        }
    }

    /// Presses the button `action` of notification `id`, as a click on it does: mako sends `ActionInvoked` to
    /// the client that posted it.
    func press(_ id: Int, _ action: String) throws {
        let result = try makoctl(["invoke", "-n", String(id), action])
        guard result.status == 0 else { throw IntegrationError("makoctl invoke: \(result.error)") }
    }

    static let watcherName = "org.kde.StatusNotifierWatcher"

    /// `busctl` on the session's bus as its user; `--json=short` output parsed (its `data`: a call's replies as
    /// an array, none for a call without, a property's value as it is), or a thrown error.
    func busctl(_ arguments: [String]) throws -> Any {
        let command = [Self.busctl, "--address=\(busAddress)", "--json=short", "--"] + arguments
        let result = try runCommand(
            Self.asNobody[0], Array(Self.asNobody.dropFirst()) + command, environment: environment, timeoutSeconds: 10)
        if result.status == 0, result.output.isEmpty { return [Any]() }
        guard result.status == 0,
            let object = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
            let data = object["data"]
        else { throw IntegrationError("busctl \(arguments): \(result.status) \(result.output) \(result.error)") }
        return data
    }

    /// A call to the bus daemon itself, its one reply.
    func busDaemon(_ member: String, _ signature: String, _ arguments: [String]) throws -> Any? {
        let reply = try busctl(
            ["call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", member]
                + (signature.isEmpty ? [] : [signature]) + arguments)
        return (reply as? [Any])?.first
    }

    /// The unique name that owns `name` now; nil when none does.
    func owner(of name: String) throws -> String? {
        try? busDaemon("GetNameOwner", "s", [name]) as? String
    }

    /// The process behind a unique name.
    func pid(of connection: String) throws -> Int? {
        try busDaemon("GetConnectionUnixProcessID", "s", [connection]) as? Int
    }

    /// Every unique name on the bus whose process is `pid`.
    func connections(of pid: Int32) throws -> [String] {
        let names = try busDaemon("ListNames", "", []) as? [String] ?? []
        return names.filter { $0.hasPrefix(":") && (try? self.pid(of: $0)) == Int(pid) }
    }
}
