import Testing

@testable import Configuration

/// Where aiden-phone reads its configuration and keeps its state when nothing names them: root, the
/// system unit (systemd's variables), a person (XDG), and every way a variable can be unusable.
@Suite struct PhonePathsTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var root: Bool
        var environment: [String: String]
        var configurationFiles: [String]
        var stateDirectory: String?
        var testDescription: String { name }
    }

    static let etc = "/etc/aiden/phone.toml"

    static let rows: [Row] = [
        Row(
            name: "root: the system places, whatever XDG says", root: true,
            environment: ["HOME": "/root", "XDG_CONFIG_HOME": "/root/cfg", "XDG_STATE_HOME": "/root/st"],
            configurationFiles: [etc], stateDirectory: "/var/lib/aiden-phone"),
        Row(
            name: "root without any variable", root: true, environment: [:],
            configurationFiles: [etc], stateDirectory: "/var/lib/aiden-phone"),
        Row(
            name: "the system unit: user aiden with systemd's directories", root: false,
            environment: [
                "HOME": "/", "STATE_DIRECTORY": "/var/lib/aiden-phone", "CONFIGURATION_DIRECTORY": "/etc/aiden",
            ],
            configurationFiles: [etc], stateDirectory: "/var/lib/aiden-phone"),
        Row(
            name: "systemd's directories win for root too", root: true,
            environment: ["STATE_DIRECTORY": "/srv/phone", "CONFIGURATION_DIRECTORY": "/srv/etc"],
            configurationFiles: ["/srv/etc/phone.toml"], stateDirectory: "/srv/phone"),
        Row(
            name: "several systemd directories: the first", root: false,
            environment: ["STATE_DIRECTORY": "/var/lib/a:/var/lib/b", "CONFIGURATION_DIRECTORY": "/etc/x:/etc/y"],
            configurationFiles: ["/etc/x/phone.toml"], stateDirectory: "/var/lib/a"),
        Row(
            name: "a relative or empty systemd directory is ignored", root: false,
            environment: ["HOME": "/home/ana", "STATE_DIRECTORY": "var/lib/x", "CONFIGURATION_DIRECTORY": ""],
            configurationFiles: ["/home/ana/.config/aiden/phone.toml", etc],
            stateDirectory: "/home/ana/.local/state/aiden-phone"),
        Row(
            name: "a person, XDG unset: the defaults under HOME, then /etc", root: false,
            environment: ["HOME": "/home/ana"],
            configurationFiles: ["/home/ana/.config/aiden/phone.toml", etc],
            stateDirectory: "/home/ana/.local/state/aiden-phone"),
        Row(
            name: "a person, XDG set", root: false,
            environment: ["HOME": "/home/ana", "XDG_CONFIG_HOME": "/cfg/ana", "XDG_STATE_HOME": "/state/ana"],
            configurationFiles: ["/cfg/ana/aiden/phone.toml", etc], stateDirectory: "/state/ana/aiden-phone"),
        Row(
            name: "XDG set but empty counts as unset", root: false,
            environment: ["HOME": "/home/ana", "XDG_CONFIG_HOME": "", "XDG_STATE_HOME": ""],
            configurationFiles: ["/home/ana/.config/aiden/phone.toml", etc],
            stateDirectory: "/home/ana/.local/state/aiden-phone"),
        Row(
            name: "XDG relative is invalid and ignored", root: false,
            environment: ["HOME": "/home/ana", "XDG_CONFIG_HOME": ".config", "XDG_STATE_HOME": "state"],
            configurationFiles: ["/home/ana/.config/aiden/phone.toml", etc],
            stateDirectory: "/home/ana/.local/state/aiden-phone"),
        Row(
            name: "trailing slashes are dropped", root: false,
            environment: ["HOME": "/home/ana/", "XDG_STATE_HOME": "/state//"],
            configurationFiles: ["/home/ana/.config/aiden/phone.toml", etc], stateDirectory: "/state/aiden-phone"),
        Row(
            name: "HOME is /", root: false, environment: ["HOME": "/"],
            configurationFiles: ["/.config/aiden/phone.toml", etc], stateDirectory: "/.local/state/aiden-phone"),
        Row(
            name: "no HOME but XDG set: XDG alone", root: false,
            environment: ["XDG_CONFIG_HOME": "/cfg", "XDG_STATE_HOME": "/st"],
            configurationFiles: ["/cfg/aiden/phone.toml", etc], stateDirectory: "/st/aiden-phone"),
        Row(
            name: "no HOME, no XDG: only /etc, and no state directory", root: false, environment: [:],
            configurationFiles: [etc], stateDirectory: nil),
        Row(
            name: "a relative HOME is no home", root: false,
            environment: ["HOME": "home/ana", "XDG_STATE_HOME": ""],
            configurationFiles: [etc], stateDirectory: nil),
        Row(
            name: "an empty HOME is no home", root: false, environment: ["HOME": ""],
            configurationFiles: [etc], stateDirectory: nil),
    ]

    @Test(arguments: rows)
    func resolves(_ row: Row) {
        let paths = PhonePaths.resolve(isRoot: row.root, environment: row.environment)
        #expect(paths.configurationFiles == row.configurationFiles)
        #expect(paths.stateDirectory == row.stateDirectory)
    }

    @Test(arguments: [
        (["XDG_RUNTIME_DIR": "/run/user/1000"], "/run/user/1000/aiden-phone/status.sock"),
        (["XDG_RUNTIME_DIR": "/run/user/1000/"], "/run/user/1000/aiden-phone/status.sock"),
        (["XDG_RUNTIME_DIR": "run/user/1000"], nil),
        (["XDG_RUNTIME_DIR": ""], nil),
        (["HOME": "/home/ana"], nil),
    ])
    func theBarStatusSocketIsInTheRuntimeDirectoryOnly(environment: [String: String], socket: String?) {
        #expect(PhonePaths.resolve(isRoot: false, environment: environment).statusSocket == socket)
        #expect(PhonePaths.resolve(isRoot: true, environment: environment).statusSocket == socket)
    }

    /// The configuration's own default leaves the choice to PhonePaths, and `""` says the same.
    @Test func theStateDirectoryDefaultsToTheStandardPlace() throws {
        #expect(PhoneConfiguration.defaults.state.directory == nil)
        let empty = try PhoneConfiguration.parse("[state]\ndirectory = \"\"\n", file: "phone.toml")
        #expect(empty.state.directory == nil)
        let set = try PhoneConfiguration.parse("[state]\ndirectory = \"/srv/phone\"\n", file: "phone.toml")
        #expect(set.state.directory == "/srv/phone")
    }
}
