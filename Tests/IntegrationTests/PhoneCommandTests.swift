import Foundation
import Testing

/// aiden-phone's command line as a built binary: exit codes and the messages people see.
@Suite struct PhoneCommandTests {
    private func phone(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        try runCommand(
            try #require(Products.path("aiden-phone")), arguments, environment: environment,
            timeoutSeconds: 20)
    }

    @Test func helpVersionAndUsageErrors() throws {
        let help = try phone(["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("usage: aiden-phone [--config FILE] [--json]"))
        #expect(help.output.contains("SIGUSR1"))
        #expect(help.output.contains("aiden-phone stop|done|refuse|dismiss [ID] [--revision N] [--config FILE]"))
        let badID = try phone(["stop", "a/b"])
        #expect(badID.status == 64)
        #expect(badID.error.contains("task id 'a/b'"))
        let version = try phone(["--version"])
        #expect(version.status == 0)
        #expect(version.output == "aiden-phone 0.1.0\n")
        let unknown = try phone(["--verbose"])
        #expect(unknown.status == 64)
        #expect(unknown.error.contains("unknown option --verbose"))
        #expect(try phone(["--config"]).status == 64)
    }

    @Test func configurationErrorsNameTheFileLineAndKey() throws {
        let scratch = try Scratch("aiden-phone-cmd")
        let typo = scratch.path + "/typo.toml"
        try "[wake]\ntransport = \"loopback\"\nloopback_lisen = \"127.0.0.1:1\"\n".write(
            toFile: typo, atomically: true, encoding: .utf8)
        let result = try phone(["--config", typo])
        #expect(result.status == 78)
        #expect(result.error.contains("\(typo):3: wake.loopback_lisen"), "\(result.error)")

        let missing = try phone(["--config", scratch.path + "/nothere.toml"])
        #expect(missing.status == 78, "an explicit file must exist")

        // The BLE transport runs (BlueZTests.PhoneDaemonBlueZTests); a bad adapter name is still refused.
        let bluez = scratch.path + "/bluez.toml"
        try "[wake]\ntransport = \"bluez\"\nadapter = \"wlan0\"\n".write(
            toFile: bluez, atomically: true, encoding: .utf8)
        let central = try phone(["--config", bluez])
        #expect(central.status == 78)
        #expect(central.error.contains("\(bluez):3: wake.adapter"), "\(central.error)")

        let environment = try phone(["--config", typo], environment: ["LIVE_ACTIVITY_PHONE_ID": "has space"])
        #expect(environment.status == 78)
    }

    @Test func anUnwritableStateDirectoryIsExit73() throws {
        let scratch = try Scratch("aiden-phone-cmd")
        let blocker = scratch.path + "/file"
        try "x".write(toFile: blocker, atomically: true, encoding: .utf8)
        let config = scratch.path + "/phone.toml"
        try """
        [board]
        url = "http://127.0.0.1:9"
        [wake]
        transport = "loopback"
        loopback_listen = "127.0.0.1:0"
        [state]
        directory = "\(blocker)/state"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let result = try phone(["--config", config])
        #expect(result.status == 73)
        #expect(result.error.contains("state directory"))
    }

    /// Run by hand as a person (not root) with no `--config`: it reads ~/.config/aiden/phone.toml and
    /// keeps its state in ~/.local/state/aiden-phone, made with mode 0700 (where /var/lib/aiden-phone
    /// used to stop it with exit 73). As root the test drops to `nobody` with setpriv.
    @Test func aPersonsClientUsesTheXDGDirectories() throws {
        let phone = try PhoneProcess(boardURL: "http://127.0.0.1:9", phoneID: nil)
        let home = phone.scratch.path + "/home"
        let config = home + "/.config/aiden/phone.toml"
        try FileManager.default.createDirectory(
            atPath: home + "/.config/aiden", withIntermediateDirectories: true)
        try """
        # the person's own file: loopback, a board that is not there
        [board]
        url = "http://127.0.0.1:9"
        [wake]
        transport = "loopback"
        loopback_listen = "127.0.0.1:0"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        var launcher: [String] = []
        if geteuid() == 0 {
            let nobody: uid_t = 65534
            for path in [home, home + "/.config", home + "/.config/aiden", config] {
                #expect(chown(path, nobody, gid_t(nobody)) == 0, "chown \(path)")
            }
            launcher = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        }
        try phone.start(environment: ["HOME": home], standardPlaces: true, launcher: launcher)
        let state = home + "/.local/state/aiden-phone"
        #expect(phone.lastCard?["problem_kind"] as? String == "unreachable", "\(phone.rawLines)")
        #expect(phone.stop() == 0)
        #expect(phone.log.contains("configuration \(config), state \(state)"), "\(phone.log)")
        for directory in [home + "/.local", home + "/.local/state", state] {
            var info = stat()
            #expect(stat(directory, &info) == 0, "\(directory)")
            #expect(info.st_mode & 0o777 == 0o700, "\(directory): \(String(info.st_mode & 0o777, radix: 8))")
        }
        let id = try String(contentsOfFile: state + "/phone-id", encoding: .utf8)
        #expect(id.hasPrefix("phone_"))
    }
}
