import Foundation
import Testing

/// The tray item in a real host: Debian's waybar, under the headless sway of `WaylandDesktop` (run as an
/// unprivileged user with its own session bus), whose `tray` module is the session's StatusNotifierWatcher and
/// its host. The phone's item registers with waybar's watcher, waybar reads the item's properties (and reads
/// them again when the item signals a change), and the menu's Stop, clicked as a person clicks it (a right click on
/// the item opens waybar's menu, a click on Stop makes waybar send the click, `EventGroup`; the pointer is
/// wayvnc's, `WaylandDesktop.click`), reaches the board as the person's answer. The bar's custom module runs
/// `aiden-phone status --follow --json` beside it and gets the task's line.
@Suite(
    .serialized,
    .enabled(
        if: WaylandDesktop.available && FileManager.default.isExecutableFile(atPath: WaylandDesktop.waybar)
            && FileManager.default.isExecutableFile(atPath: BusMonitor.program)
            && FileManager.default.isExecutableFile(atPath: WaylandDesktop.wayvnc),
        Comment(rawValue: WaylandDesktop.skipMessage + ", waybar, wayvnc")))
struct WaybarTrayTests {
    static let title = "Render the site"
    static let itemInterface = "org.kde.StatusNotifierItem"

    /// A bar with the custom module (what it prints kept in `~/bar-lines` of the desktop's user) and the tray.
    /// The module's programs end with waybar (`--pdeathsig`: waybar leaves them running when the session ends),
    /// and it comes back 1 s after it exits (no client answers yet when waybar starts).
    static func barConfiguration(phone binary: String) throws -> String {
        let tied = "setpriv --pdeathsig KILL --"
        let module = "\(tied) \(binary) status --follow --json | \(tied) tee \"$HOME/bar-lines\""
        let bar: [String: Any] = [
            "layer": "top", "position": "top", "height": 28,
            "modules-left": ["custom/aiden"], "modules-right": ["tray"],
            "tray": ["icon-size": 18, "spacing": 8],
            "custom/aiden": [
                "exec": "exec \(tied) sh -c '\(module)'", "return-type": "json", "restart-interval": 1,
                "format": "{}",
            ],
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: bar, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Waits (bounded, 15 s unless told) until `condition` holds.
    static func eventually(seconds: Double = 15, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    /// The id of the menu item labelled `label` in the item's layout as a host reads it (`GetLayout(0, -1, [])`).
    static func menuItem(_ label: String, on item: String, in desktop: WaylandDesktop) throws -> Int? {
        let reply = try desktop.busctl([
            "call", item, "/MenuBar", "com.canonical.dbusmenu", "GetLayout", "iias", "0", "-1", "0",
        ])
        guard let root = (reply as? [Any])?.last as? [Any], let children = root.last as? [Any] else { return nil }
        for case let child as [String: Any] in children {
            guard let entry = child["data"] as? [Any], let id = entry.first as? Int,
                let properties = entry.dropFirst().first as? [String: Any],
                (properties["label"] as? [String: Any])?["data"] as? String == label
            else { continue }
            return id
        }
        return nil
    }

    @Test func waybarHostsTheItemAndItsMenuStopsTheTask() throws {
        guard let binary = Products.path("aiden-phone") else { throw IntegrationError("aiden-phone not built") }
        let desktop = try WaylandDesktop(waybar: try Self.barConfiguration(phone: binary))
        let barLines = desktop.scratch.path + "/home/bar-lines"
        defer { desktop.stop() }
        let monitor = try BusMonitor(desktop)
        defer { monitor.stop() }
        // waybar's tray is the watcher: the name is owned by waybar's process.
        let watcher = try #require(try desktop.owner(of: WaylandDesktop.watcherName), "\(desktop.waybarLog)")
        let waybarPID = try #require(try desktop.pid(of: watcher))
        let command = try String(contentsOfFile: "/proc/\(waybarPID)/comm", encoding: .utf8)
        #expect(command.trimmingCharacters(in: .whitespacesAndNewlines) == "waybar", "the watcher is \(command)")
        let waybarConnections = try desktop.connections(of: Int32(waybarPID))

        let wakePort = try freeLoopbackPort()
        let board = try BoardProcess(wakeTarget: "127.0.0.1:\(wakePort)")
        try board.start()
        defer { board.stop() }
        let phone = try PhoneProcess(boardURL: "http://127.0.0.1:\(board.port)", wakePort: wakePort)
        #expect(chown(phone.scratch.path, WaylandDesktop.nobody, gid_t(WaylandDesktop.nobody)) == 0)
        try phone.start(
            environment: desktop.environment.merging(["XDG_RUNTIME_DIR": desktop.runtimeDirectory]) { $1 },
            launcher: WaylandDesktop.asNobody)
        defer { phone.stop() }
        #expect(
            Self.eventually { phone.log.contains("tray item registered with the StatusNotifierWatcher") },
            "\(phone.log)")
        let phoneConnections = try desktop.connections(of: try #require(phone.process?.processIdentifier))

        // The watcher holds the item, by the phone's connection.
        var registered: [String] = []
        #expect(
            Self.eventually {
                registered =
                    (try? desktop.busctl([
                        "get-property", WaylandDesktop.watcherName, "/StatusNotifierWatcher",
                        WaylandDesktop.watcherName, "RegisteredStatusNotifierItems",
                    ])) as? [String] ?? []
                return registered.contains { item in phoneConnections.contains { item.hasPrefix($0) } }
            }, "registered \(registered), the phone is \(phoneConnections)")
        let item = try #require(
            phoneConnections.first { connection in registered.contains { $0.hasPrefix(connection) } })

        // waybar read the item's properties (its host builds the icon from them).
        func reads() -> Int {
            monitor.calls.filter {
                waybarConnections.contains($0.sender) && $0.destination == item && $0.path == "/StatusNotifierItem"
                    && $0.interface == "org.freedesktop.DBus.Properties" && ["GetAll", "Get"].contains($0.member)
            }.count
        }
        #expect(Self.eventually { reads() > 0 }, "waybar \(waybarConnections) never read \(item): \(monitor.log)")
        let before = reads()

        // A task starts: the item changes (NewStatus and the rest), and waybar reads it again.
        let id = try board.aidenctl([
            "task", "start", "--title", Self.title, "--step", "Fetching the pages", "--can-stop", "true",
        ]).lastLine
        #expect(Self.eventually { reads() > before }, "waybar did not read the changed item: \(monitor.log)")
        let status = try? desktop.busctl(["get-property", item, "/StatusNotifierItem", Self.itemInterface, "Status"])
        #expect(status as? String == "Active")

        // The bar's custom module got the task's line from the running client.
        #expect(
            Self.eventually {
                let lines = (try? String(contentsOfFile: barLines, encoding: .utf8)) ?? ""
                return lines.split(separator: "\n").contains {
                    guard let line = jsonObject(String($0)) else { return false }
                    return (line["text"] as? String)?.contains(Self.title) == true
                        && line["class"] as? String == "running"
                }
            }, "custom module: \((try? String(contentsOfFile: barLines, encoding: .utf8)) ?? "nothing")")

        // Stop in the menu, clicked as a person clicks it. The tray is the bar's last module, so its icon is near
        // the bar's right end: a right click there opens waybar's menu (waybar asks the item `AboutToShow…`).
        #expect(
            Self.eventually {
                (try? Self.menuItem("Stop", on: item, in: desktop)) != nil
            })
        func menuCalls(_ members: [String]) -> Int {
            monitor.calls.filter {
                waybarConnections.contains($0.sender) && $0.destination == item && $0.path == "/MenuBar"
                    && members.contains($0.member)
            }.count
        }
        let barMiddle = 14
        var icon: Int?
        for x in stride(from: -4, through: -64, by: -6) {
            let shown = menuCalls(["AboutToShow", "AboutToShowGroup"])
            try desktop.click(x: x, y: barMiddle, button: "right")
            if Self.eventually(seconds: 2, { menuCalls(["AboutToShow", "AboutToShowGroup"]) > shown }) {
                icon = x
                break
            }
        }
        let iconX = try #require(icon, "no right click near the bar's right end opened the menu: \(monitor.log)")
        // The menu opens below the pointer, towards the screen's middle: the task's words first (not pressable,
        // so a click on them does nothing), then Stop, the first item that takes a click. Clicks walk down from
        // the words until waybar sends the click (libdbusmenu sends it as `EventGroup`, `Event` before that).
        let clicks = ["Event", "EventGroup"]
        for offset in stride(from: 10, through: 90, by: 8) {
            try desktop.click(x: iconX - 80, y: barMiddle + offset)
            if Self.eventually(seconds: 1, { menuCalls(clicks) > 0 }) { break }
        }
        #expect(menuCalls(clicks) == 1, "waybar's menu sent no click, or more than one: \(monitor.log)")
        var answer: [String: Any]?
        #expect(
            Self.eventually {
                let task = (try? board.http("/api/live-activity/status?request_id=\(id)"))?.json
                answer = (task?["live_activity"] as? [String: Any])?["answer"] as? [String: Any]
                return answer != nil
            })
        #expect(answer?["answer"] as? String == "stop", "\(phone.log)")
        #expect(phone.log.contains("tray: stop for task \(id) at revision"), "\(phone.log)")
    }
}
