import BoardService
import Configuration
import Foundation
import Testing

/// The units as installed: `systemd-analyze verify` and `security --offline` on each, plus what
/// systemd cannot know (that the directories, user and addresses agree with the code's defaults).
@Suite struct SystemdUnitTests {
    static let units = ["aiden-board.service", "aiden-gadget.service", "aiden-phone.service"]
    /// What `verify` checks: the services and the target udev pulls in.
    static let unitFiles = units + ["aiden-board.socket", "aiden-udc.target"]
    /// The units for a user's service manager (systemd/user/, installed in lib/systemd/user/).
    static let userUnits = ["aiden-phone.service"]
    static let analyze = tool("/usr/bin/systemd-analyze", "/bin/systemd-analyze")

    /// The exposure each unit must stay at or under (docs/deployment.md records the measured values).
    static let exposureLimits = ["aiden-board.service": 1.5, "aiden-phone.service": 1.5, "aiden-gadget.service": 2.0]
    /// A user manager cannot set up everything a system unit has (no IP or device filter, its processes
    /// see every process), and the offline analysis counts a unit without User= as root.
    static let userExposureLimits = ["aiden-phone.service": 2.5]

    static func unit(_ name: String) throws -> INIFile { INIFile(try Repository.text("systemd/\(name)")) }
    static func userUnit(_ name: String) throws -> INIFile { INIFile(try Repository.text("systemd/user/\(name)")) }

    /// Installs into a staging root and rewrites the binary paths to the staged binaries, so `verify`
    /// finds every ExecStart= executable without touching /usr.
    static func stagedUnits() throws -> (StagedInstall, [String]) {
        let staged = try StagedInstall()
        let directory = staged.path("verify")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let paths = try unitFiles.map { name in
            let text = try String(contentsOfFile: staged.path("usr/lib/systemd/system/\(name)"), encoding: .utf8)
            let path = "\(directory)/\(name)"
            try text.replacingOccurrences(of: "=/usr/bin/", with: "=\(staged.root)/usr/bin/")
                .write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        return (staged, paths)
    }

    /// The user units as installed, with the binary paths rewritten like `stagedUnits()`.
    static func stagedUserUnits() throws -> (StagedInstall, [String]) {
        let staged = try StagedInstall()
        let directory = staged.path("verify-user")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let paths = try userUnits.map { name in
            let text = try String(contentsOfFile: staged.path("usr/lib/systemd/user/\(name)"), encoding: .utf8)
            let path = "\(directory)/\(name)"
            try text.replacingOccurrences(of: "=/usr/bin/", with: "=\(staged.root)/usr/bin/")
                .write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        return (staged, paths)
    }

    /// `systemd-analyze --user` builds a user manager, which wants a runtime directory of its own.
    static func userAnalyze(_ arguments: [String], in staged: StagedInstall) throws -> CommandResult {
        let runtime = staged.path("runtime")
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return try run(
            try #require(analyze), ["--user"] + arguments,
            environment: ["XDG_RUNTIME_DIR": runtime, "HOME": staged.path("home")])
    }

    @Test(.enabled(if: analyze != nil)) func verifyAcceptsEveryUserUnit() throws {
        let (staged, paths) = try Self.stagedUserUnits()
        let result = try Self.userAnalyze(["verify", "--man=no"] + paths, in: staged)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.isEmpty, "\(result.output)")
        #expect(result.error.isEmpty, "\(result.error)")
    }

    /// `--user` really loads the unit: a mistake in it fails.
    @Test(.enabled(if: analyze != nil)) func userVerifyWouldCatchAMistake() throws {
        let (staged, paths) = try Self.stagedUserUnits()
        let broken = try String(contentsOfFile: paths[0], encoding: .utf8)
            .replacingOccurrences(of: "\(staged.root)/usr/bin/aiden-phone", with: "\(staged.root)/usr/bin/aiden-fone")
        try broken.write(toFile: paths[0], atomically: true, encoding: .utf8)
        let result = try Self.userAnalyze(["verify", "--man=no", paths[0]], in: staged)
        #expect(result.status != 0)
        #expect(result.error.contains("aiden-fone is not executable"), "\(result.error)")
    }

    @Test(.enabled(if: analyze != nil), arguments: userUnits)
    func userExposureStaysLow(unit: String) throws {
        let (staged, paths) = try Self.stagedUserUnits()
        let path = try #require(paths.first { $0.hasSuffix("/\(unit)") })
        let limit = try #require(Self.userExposureLimits[unit])
        let result = try Self.userAnalyze(["security", "--offline=true", "--no-pager", path], in: staged)
        #expect(result.status == 0, "\(result.error)")
        let score = try #require(Self.exposure(result.output), "no score in: \(result.output)")
        #expect(score <= limit, "user \(unit) exposure \(score) is above \(limit)")
    }

    @Test(.enabled(if: analyze != nil)) func verifyAcceptsEveryUnit() throws {
        let analyze = try #require(Self.analyze)
        let (staged, paths) = try Self.stagedUnits()
        let result = try withExtendedLifetime(staged) { try run(analyze, ["verify", "--man=no"] + paths) }
        #expect(result.status == 0)
        #expect(result.output.isEmpty, "\(result.output)")
        #expect(result.error.isEmpty, "\(result.error)")
    }

    @Test(.enabled(if: analyze != nil)) func verifyWouldCatchAMistake() throws {
        let analyze = try #require(Self.analyze)
        let (staged, paths) = try Self.stagedUnits()
        let broken = try String(contentsOfFile: paths[0], encoding: .utf8)
            .replacingOccurrences(of: "\(staged.root)/usr/bin/aiden-board", with: "\(staged.root)/usr/bin/aiden-bored")
        try broken.write(toFile: paths[0], atomically: true, encoding: .utf8)
        let result = try run(analyze, ["verify", "--man=no", paths[0]])
        #expect(result.status != 0)
        #expect(result.error.contains("aiden-bored is not executable"))
    }

    /// The score is the last line: "→ Overall exposure level for aiden-board.service: 1.0 OK".
    static func exposure(_ output: String) -> Double? {
        guard let line = output.split(separator: "\n").last(where: { $0.contains("Overall exposure level") }),
            let colon = line.range(of: ": ")
        else { return nil }
        return Double(line[colon.upperBound...].split(separator: " ").first ?? "")
    }

    @Test(.enabled(if: analyze != nil), arguments: units)
    func exposureStaysLow(unit: String) throws {
        let analyze = try #require(Self.analyze)
        let (staged, paths) = try Self.stagedUnits()
        defer { withExtendedLifetime(staged) {} }
        let path = try #require(paths.first { $0.hasSuffix("/\(unit)") })
        let limit = try #require(Self.exposureLimits[unit])
        let result = try run(analyze, ["security", "--offline=true", "--no-pager", path])
        #expect(result.status == 0, "\(result.error)")
        let score = try #require(Self.exposure(result.output), "no score in: \(result.output)")
        #expect(score <= limit, "\(unit) exposure \(score) is above \(limit)")
        let bounded = try run(
            analyze,
            [
                "security", "--offline=true", "--threshold=\(Int(limit * 10))", "--no-pager",
                path,
            ])
        #expect(bounded.status == 0)
    }

    @Test func scoreParser() {
        #expect(Self.exposure("x\n→ Overall exposure level for a.service: 1.2 OK 🙂\n") == 1.2)
        #expect(Self.exposure("-> Overall exposure level for a.service: 9.6 UNSAFE :-{") == 9.6)
        #expect(Self.exposure("nothing") == nil)
    }

    @Test func boardUnitMatchesTheDaemon() throws {
        let unit = try Self.unit("aiden-board.service")
        let defaults = BoardConfiguration.defaults
        #expect(unit.value("Service", "Type") == "notify")
        #expect(unit.value("Service", "NotifyAccess") == "main")
        #expect(unit.value("Service", "WatchdogSec") == "30s")
        #expect(unit.value("Service", "Restart") == "on-failure")
        #expect(unit.value("Service", "ExecStart") == "/usr/bin/aiden-board")
        // The daemon's defaults are where systemd makes the directories.
        #expect("/var/lib/" + (unit.value("Service", "StateDirectory") ?? "") == defaults.state.directory)
        #expect(unit.value("Service", "StateDirectoryMode") == "0700")
        #expect("/run/" + (unit.value("Service", "RuntimeDirectory") ?? "") + "/agent.sock" == defaults.agent.socket)
        #expect(unit.value("Service", "RuntimeDirectoryMode") == "0750")
        #expect(unit.value("Service", "ConfigurationDirectory") == "aiden")
        // 78 is the daemon's configuration-error exit.
        #expect(unit.value("Service", "RestartPreventExitStatus") == "78")
        // Nothing outside loopback and the ECM subnet.
        #expect(unit.words("Service", "IPAddressAllow") == ["localhost", "\(BoardConfiguration.ecmSubnet)"])
        #expect(unit.words("Service", "RestrictAddressFamilies") == ["AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"])
        #expect(unit.words("Unit", "After").contains("aiden-gadget.service"))
        #expect(unit.words("Unit", "After").contains("bluetooth.service"))
        #expect(unit.words("Unit", "Wants") == ["aiden-gadget.service", "aiden-board.socket"])
    }

    /// The agent socket limits connections per user (`SO_PEERCRED`'s uid). In a user namespace every agent's uid
    /// reads as the overflow uid, so one agent could hold every slot: the board's unit sets no `PrivateUsers=`.
    @Test func boardUnitLetsTheAgentSocketTellAgentsApart() throws {
        let unit = try Self.unit("aiden-board.service")
        #expect(unit.value("Service", "PrivateUsers") == nil)
        #expect(unit.value("Service", "User") == "aiden")
    }

    /// The socket systemd holds for the daemon: the endpoint the daemon listens on by default (it takes a passed
    /// socket only for an endpoint `[http] listen` names), bindable before the address exists, tied to no device
    /// (see the unit's comment), and with no IP firewall: the connections accepted on it are the socket unit's,
    /// and a peer the board does not serve must reach the daemon to get its 403 (docs/security.md).
    @Test func boardSocketIsTheDaemonsListenEndpoint() throws {
        let socket = try Self.unit("aiden-board.socket")
        let defaults = BoardConfiguration.defaults
        #expect(socket.value("Socket", "ListenStream") == defaults.http.listen.first?.description)
        #expect(defaults.http.listen.count == 1)
        #expect(socket.value("Socket", "FreeBind") == "yes")
        #expect(socket.value("Socket", "BindToDevice") == nil)
        #expect(socket.value("Socket", "Accept") == nil, "one daemon for every connection, not one per connection")
        #expect(socket.value("Socket", "Service") == nil, "it activates aiden-board.service, by its name")
        #expect(socket.value("Socket", "IPAddressAllow") == nil)
        #expect(socket.value("Socket", "IPAddressDeny") == nil, "an outsider is answered 403, not dropped")
        #expect(socket.value("Install", "WantedBy") == "sockets.target")
        #expect(Int32(socket.value("Socket", "Backlog") ?? "") == BoardDaemon.ecmBacklog, "as deep as its own listener")
    }

    @Test func phoneUnitMatchesTheClient() throws {
        let unit = try Self.unit("aiden-phone.service")
        // The client runs as aiden, not root: it finds its directories in what systemd passes for
        // StateDirectory= and ConfigurationDirectory=, which must be root's standard places.
        #expect(unit.value("Service", "User") == "aiden")
        let environment = [
            "HOME": "/", "STATE_DIRECTORY": "/var/lib/" + (unit.value("Service", "StateDirectory") ?? ""),
            "CONFIGURATION_DIRECTORY": "/etc/" + (unit.value("Service", "ConfigurationDirectory") ?? ""),
        ]
        let paths = PhonePaths.resolve(isRoot: false, environment: environment)
        #expect(paths.stateDirectory == PhonePaths.resolve(isRoot: true, environment: [:]).stateDirectory)
        #expect(paths.configurationFiles == PhonePaths.resolve(isRoot: true, environment: [:]).configurationFiles)
        #expect(paths.configurationFiles == ["/etc/aiden/phone.toml"])
        #expect(unit.value("Service", "StateDirectoryMode") == "0700")
        // The client opens no device node (libusb's hotplug reads sysfs): the device cgroup admits none.
        #expect(unit.value("Service", "DevicePolicy") == "closed")
        #expect(unit.value("Service", "DeviceAllow") == nil)
        #expect(unit.value("Service", "PrivateDevices") == "no")
        #expect(unit.words("Service", "RestrictAddressFamilies").contains("AF_NETLINK"))
        #expect(unit.words("Service", "IPAddressAllow") == ["localhost", "192.168.42.0/24"])
    }

    /// The user unit: the system unit's client, started and stopped by the board's device unit, in
    /// directories that are the ones the client resolves (PhonePaths) and the sandbox shows.
    @Test func userUnitMatchesTheClient() throws {
        let unit = try Self.userUnit("aiden-phone.service")
        let system = try Self.unit("aiden-phone.service")
        let shared = ["Type", "NotifyAccess", "ExecStart", "WatchdogSec", "Restart", "RestartPreventExitStatus"]
        for key in shared + ["UMask"] {
            #expect(unit.value("Service", key) == system.value("Service", key), "\(key)")
        }
        #expect(unit.value("Service", "ExecStart") == "/usr/bin/aiden-phone")
        // Started by udev's SYSTEMD_USER_WANTS, stopped when no board wants it; never enabled.
        #expect(unit.value("Unit", "StopWhenUnneeded") == "yes")
        #expect(unit.sections == ["Unit", "Service"])
        #expect(unit.value("Unit", "ConditionUser") == "!@system")
        // Out of the way where the system unit was chosen: exactly where `systemctl enable` links it.
        let wantedBy = try #require(system.words("Install", "WantedBy").first)
        #expect(
            unit.value("Unit", "ConditionPathExists")
                == "!/etc/systemd/system/\(wantedBy).wants/aiden-phone.service")
        #expect(unit.value("Unit", "After") == "dbus.socket")

        // What the client resolves with the unit's environment, for a user whose home is /home/ana.
        let home = "/home/ana"
        func expanded(_ text: String) -> String {
            text.replacingOccurrences(of: "%h", with: home).replacingOccurrences(of: "%t", with: "/run/user/1000")
        }
        var environment = ["HOME": home]
        for word in unit.words("Service", "Environment") {
            let parts = expanded(word).split(separator: "=", maxSplits: 1).map(String.init)
            environment[parts[0]] = parts[1]
        }
        #expect(
            environment.keys.sorted() == ["GLIBC_TUNABLES", "HOME", "LD_BIND_NOW", "XDG_CONFIG_HOME", "XDG_STATE_HOME"])
        let paths = PhonePaths.resolve(isRoot: false, environment: environment)
        let state = try #require(paths.stateDirectory)
        #expect(state == "/home/ana/.local/state/aiden-phone")
        #expect(unit.value("Service", "ExecStartPre").map(expanded) == "+/bin/mkdir -p \(state)")
        let socket = try #require(
            PhonePaths.resolve(
                isRoot: false,
                environment: environment.merging(["XDG_RUNTIME_DIR": "/run/user/1000"]) {
                    $1
                }
            ).statusSocket)
        #expect(unit.words("Service", "BindPaths").map(expanded) == [state, "/run/user/1000/aiden-phone"])
        // The bar status socket is in the runtime directory the unit makes and shows through the hidden /run/user.
        #expect(socket == "/run/user/1000/" + (unit.value("Service", "RuntimeDirectory") ?? "") + "/status.sock")
        #expect(unit.value("Service", "RuntimeDirectoryMode") == "0700")
        let shown = unit.words("Service", "BindReadOnlyPaths").map(expanded)
        #expect(shown == ["-/home/ana/.config/aiden", "-/run/user/1000/bus", "/run/user/1000/systemd/notify"])
        #expect(paths.configurationFiles == ["/home/ana/.config/aiden/phone.toml", "/etc/aiden/phone.toml"])
        // The person's file is under the directory shown, the host's is outside the hidden homes.
        #expect(paths.configurationFiles[0].hasPrefix(String(shown[0].dropFirst()) + "/"))
        #expect(unit.value("Service", "ProtectHome") == "tmpfs")
        #expect(!paths.configurationFiles[1].hasPrefix("/home/") && !paths.configurationFiles[1].hasPrefix("/run/"))
    }

    /// What the user unit keeps of the system units' sandbox: everything a user manager can set up.
    @Test func userUnitHardening() throws {
        let unit = try Self.userUnit("aiden-phone.service")
        let required = [
            "CapabilityBoundingSet": "", "NoNewPrivileges": "yes", "PrivateUsers": "yes", "ProtectSystem": "strict",
            "ProtectHome": "tmpfs", "PrivateTmp": "yes", "PrivateMounts": "yes", "PrivateDevices": "no",
            "ProtectKernelTunables": "yes", "ProtectKernelModules": "yes", "ProtectKernelLogs": "yes",
            "ProtectClock": "yes", "ProtectHostname": "yes", "KeyringMode": "private", "RestrictNamespaces": "yes",
            "RestrictRealtime": "yes", "RestrictSUIDSGID": "yes", "LockPersonality": "yes",
            "MemoryDenyWriteExecute": "yes", "SystemCallArchitectures": "native", "UMask": "0077",
        ]
        for (key, value) in required { #expect(unit.value("Service", key) == value, "\(key)") }
        let system = try Self.unit("aiden-phone.service")
        #expect(unit.values("Service", "SystemCallFilter") == system.values("Service", "SystemCallFilter"))
        #expect(unit.words("Service", "RestrictAddressFamilies") == system.words("Service", "RestrictAddressFamilies"))
        #expect(unit.malformed.isEmpty)
    }

    /// Both phone units leave /proc/sys readable: the USB connection id mixes in the boot id.
    @Test func phoneUnitsCanReadTheBootID() throws {
        for unit in [try Self.unit("aiden-phone.service"), try Self.userUnit("aiden-phone.service")] {
            #expect(unit.value("Service", "ProcSubset") == nil)
        }
    }

    @Test func gadgetUnitIsAOneshotAroundTheCommand() throws {
        let unit = try Self.unit("aiden-gadget.service")
        #expect(unit.value("Service", "Type") == "oneshot")
        #expect(unit.value("Service", "RemainAfterExit") == "yes")
        #expect(unit.value("Service", "ExecStart") == "/usr/bin/aiden-board gadget up")
        #expect(unit.value("Service", "ExecStop") == "/usr/bin/aiden-board gadget down")
        #expect(unit.words("Unit", "Wants").contains("modprobe@libcomposite.service"))
        #expect(unit.words("Unit", "Wants").contains("network-pre.target"))
        #expect(unit.words("Unit", "Before").contains("network-pre.target"))
        #expect(unit.words("Unit", "Before").contains("aiden-board.service"))
        // Hot-plugged UDCs start it only where it is enabled, through the target udev wants.
        #expect(unit.words("Install", "WantedBy") == ["multi-user.target", "aiden-udc.target"])
        let target = try Self.unit("aiden-udc.target")
        // It says "a controller is present": it stops with the controller's device unit, which the udev
        // rule keeps plugged through the UDC's "change" events (Tests/VM checks it stays active).
        #expect(target.value("Unit", "StopWhenUnneeded") == "yes")
        // modprobe@libcomposite makes an empty /sys/class/udc on any machine: "a controller exists" is
        // "the directory is not empty".
        #expect(unit.value("Unit", "ConditionDirectoryNotEmpty") == "/sys/class/udc")
        #expect(unit.value("Unit", "ConditionPathIsDirectory") == nil)
        // Writing /sys/kernel/config is the point: /sys must stay writable.
        #expect(unit.value("Service", "ProtectKernelTunables") == nil)
    }

    /// The daemons' units bind every library's symbols at start-up, before the daemon trims its resident set (a
    /// lazy binding afterwards would read the libraries' symbol tables back in), and give every thread one malloc
    /// arena (docs/architecture.md, "Memory").
    @Test func daemonsBindEverySymbolBeforeTheyTrimAndShareOneArena() throws {
        let units = [
            try Self.unit("aiden-board.service"), try Self.unit("aiden-phone.service"),
            try Self.userUnit("aiden-phone.service"),
        ]
        for unit in units {
            #expect(unit.values("Service", "Environment").contains("LD_BIND_NOW=1"))
            #expect(unit.values("Service", "Environment").contains("GLIBC_TUNABLES=glibc.malloc.arena_max=1"))
        }
    }

    /// What every unit keeps, so a later edit cannot quietly drop it.
    @Test(arguments: units) func commonHardening(name: String) throws {
        let unit = try Self.unit(name)
        let required = [
            "CapabilityBoundingSet": "", "NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "yes",
            "PrivateTmp": "yes", "PrivateMounts": "yes", "ProtectKernelModules": "yes", "ProtectKernelLogs": "yes",
            "ProtectControlGroups": "yes", "ProtectClock": "yes", "ProtectHostname": "yes",
            "RestrictNamespaces": "yes", "RestrictRealtime": "yes", "RestrictSUIDSGID": "yes",
            "LockPersonality": "yes", "MemoryDenyWriteExecute": "yes", "SystemCallArchitectures": "native",
            "UMask": "0077",
        ]
        for (key, value) in required { #expect(unit.value("Service", key) == value, "\(name): \(key)") }
        #expect(unit.values("Service", "SystemCallFilter").first == "@system-service")
        #expect(unit.value("Service", "IPAddressDeny") == "any")
        #expect(unit.words("Install", "WantedBy").first == "multi-user.target")
        #expect(unit.malformed.isEmpty)
        #expect(unit.sections == ["Unit", "Service", "Install"])
    }
}
