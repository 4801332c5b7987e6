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
}
