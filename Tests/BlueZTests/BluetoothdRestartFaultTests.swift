import DBus
import DBusModel
import Glibc
import TestSupport
import Testing

/// The fault suite's bluetoothd test (docs/fault-suite.md): the built aiden-board with the bluez transport on a
/// private system bus, and a bluetoothd stand-in (the fake bluetoothd, which owns `org.bluez` and checks the
/// GATT application and advertisement as bluetoothd does) killed and started again, cycle after cycle. Each
/// time the board must register its application and advertisement again and subscribe, and a Wake must reach
/// the new bluetoothd; after all cycles the board holds no more file descriptors, exported objects or match
/// rules than after the first registration. How long each re-registration took is measured and reported, not
/// asserted (the deadline of each wait is generous).
@Suite(
    "fault suite: bluetoothd leaves and returns", .serialized,
    .enabled(if: FakeBluetoothd.available && BoardBinary.path != nil, "needs the fake bluetoothd and aiden-board"))
struct BluetoothdRestartFaultTests {
    /// What bluetoothd sees of a registered board.
    static func registered(_ lines: [String]) -> Bool {
        lines.contains { $0.hasPrefix("registered-application ") } && lines.contains { $0.hasPrefix("advertisement ") }
            && lines.contains("start-notify-ok")
    }

    @Test func theBoardRegistersAgainEveryTimeAndLeaksNothing() async throws {
        let cycles = FaultSuite.size(short: 10, long: 100)
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let port = try RawHTTP.freeLoopbackPort()
        let scratch = try BoardDaemonBlueZTests().scratchWithConfig(listen: ["127.0.0.1:\(port)"])
        defer { _ = system("rm -rf '\(scratch)'") }
        var fake = try await FakeBluetoothd.start(bus: bus, role: "board")
        let board = try BoardBinary(
            arguments: ["--config", scratch + "/board.toml"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"],
            log: scratch + "/board.log")
        defer { board.kill9() }
        try await fake.waitFor("the first registration") { Self.registered($0) }
        try await eventually("the agent socket") { access(scratch + "/agent.sock", F_OK) == 0 }
        let registration = try #require(fake.allLines.first { $0.hasPrefix("registered-application ") })
        let boardName = String(registration.split(separator: " ")[1])
        let control = try await DBusConnection.connect(to: .address(bus.address))
        defer { control.close() }
        let probe = ProcessProbe(pid: board.pid)
        // A Wake through the first bluetoothd, so everything the board creates lazily exists before the baseline.
        try await wake(through: fake, scratch: scratch, index: 0)
        let fdsBefore = try #require(probe.openDescriptors())
        let targetsBefore = probe.descriptorTargets()
        let objectsBefore = try await Self.exportedObjects(of: boardName, on: control)
        let rulesBefore = try await Self.matchRules(of: boardName, on: control)

        var seconds: [Double] = []
        for cycle in 1...cycles {
            fake.stop()
            fake = try await FakeBluetoothd.start(bus: bus, role: "board")
            try await fake.waitFor("registration after return \(cycle)", within: 30) { Self.registered($0) }
            let done = try #require(fake.firstTime { $0 == "start-notify-ok" })
            seconds.append(done - fake.readyAt)
            try await wake(through: fake, scratch: scratch, index: cycle)
        }
        fake.stop()

        let fdsAfter = try #require(probe.openDescriptors())
        let objectsAfter = try await Self.exportedObjects(of: boardName, on: control)
        let rulesAfter = try await Self.matchRules(of: boardName, on: control)
        let within2s = seconds.filter { $0 <= 2 }.count
        FaultSuite.report(
            "bluetoothd-restart",
            [
                "cycles": "\(cycles)", "re-registered": "\(seconds.count)", "within-2s": "\(within2s)",
                "p50": FaultSuite.milliseconds(FaultSuite.percentile(seconds, 0.5)),
                "p99": FaultSuite.milliseconds(FaultSuite.percentile(seconds, 0.99)),
                "max": FaultSuite.milliseconds(seconds.max() ?? 0), "fds-before": "\(fdsBefore)",
                "fds-after": "\(fdsAfter)", "objects-before": "\(objectsBefore.count)",
                "objects-after": "\(objectsAfter.count)", "match-rules-before": "\(rulesBefore)",
                "match-rules-after": "\(rulesAfter)",
            ])
        #expect(seconds.count == cycles)
        #expect(
            fdsAfter <= fdsBefore,
            "descriptors before: \(targetsBefore)\nafter: \(probe.descriptorTargets())")
        #expect(objectsAfter == objectsBefore)
        #expect(rulesAfter <= rulesBefore)
    }

    /// An agent's start, and its Wake (12 bytes, a new sequence) reaching bluetoothd as a notification.
    private func wake(through fake: FakeBluetoothd, scratch: String, index: Int) async throws {
        let body = #"{"task_title":"Return \#(index)","request_id":"chat_return_\#(index)"}"#
        let answer = try RawHTTP.unix(scratch + "/agent.sock", "POST", "/v1/tasks", body: body)
        #expect(answer.status == 201, "\(answer.body)")
        let lines = try await fake.waitFor("a Wake after return \(index)", within: 30) { lines in
            BoardPeripheralIntegrationTests.values(lines).contains { $0.reason == .liveActivity }
        }
        let values = lines.filter { $0.hasPrefix("value ") }
        #expect(values.allSatisfy { $0.count == "value ".count + 24 }, "12-byte values only: \(values)")
    }

    /// The object paths `name` exports that carry an interface of their own (not only the standard ones).
    static func exportedObjects(of name: String, on bus: any MessageBus) async throws -> [String] {
        var found: [String] = []
        var pending = ["/"]
        while let path = pending.popLast() {
            let reply = try await bus.call(
                destination: name, path: DBusObjectPath(path), interface: "org.freedesktop.DBus.Introspectable",
                member: "Introspect", expecting: "s")
            let xml = reply[0].stringValue ?? ""
            let interfaces = xml.components(separatedBy: "<interface name=\"").dropFirst().compactMap {
                $0.split(separator: "\"").first.map(String.init)
            }
            if interfaces.contains(where: { !$0.hasPrefix("org.freedesktop.DBus.") }) { found.append(path) }
            for child in xml.components(separatedBy: "<node name=\"").dropFirst() {
                guard let child = child.split(separator: "\"").first else { continue }
                pending.append(path == "/" ? "/" + child : path + "/" + child)
            }
        }
        return found.sorted()
    }

    /// How many match rules the bus holds for `name` (dbus-daemon's `Debug.Stats`).
    static func matchRules(of name: String, on bus: any MessageBus) async throws -> UInt32 {
        let reply = try await bus.call(
            destination: "org.freedesktop.DBus", path: DBusObjectPath("/org/freedesktop/DBus"),
            interface: "org.freedesktop.DBus.Debug.Stats", member: "GetConnectionStats", [.string(name)],
            expecting: "a{sv}")
        return reply[0].vardict?["MatchRules"]?.unwrappingVariants.uint32Value ?? UInt32.max
    }
}
