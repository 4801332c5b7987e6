/// Where `aiden-phone` looks for its configuration and keeps its state when `--config` and
/// `[state] directory` do not say, decided from who runs it and the environment alone (pure, so
/// every case is a row of a table test).
///
/// In order of precedence:
/// - **systemd's directories**: a unit with `StateDirectory=` / `ConfigurationDirectory=` gets
///   `$STATE_DIRECTORY` / `$CONFIGURATION_DIRECTORY`; they win, so the system unit (user `aiden`,
///   not root) uses exactly the directories systemd made for it.
/// - **root**: `/etc/aiden/phone.toml` and `/var/lib/aiden-phone`, as before.
/// - **anyone else** (a person, the `systemd --user` unit): the XDG base directories,
///   `$XDG_CONFIG_HOME/aiden/phone.toml` (default `~/.config/aiden/phone.toml`), then the host's
///   `/etc/aiden/phone.toml`, whichever exists first (read whole, never merged: what the person's
///   file says is all that applies); state in `$XDG_STATE_HOME/aiden-phone` (default
///   `~/.local/state/aiden-phone`).
///
/// XDG says a relative value in one of its variables is invalid and must be ignored, and an empty
/// one counts as unset; both then fall back to the default under `$HOME`. The same holds here for
/// `$HOME` and systemd's variables. With no usable home, a non-root run has no state directory.
package struct PhonePaths: Equatable, Sendable {
    /// The configuration files to try in order; the first one that exists is read, and when none
    /// does the built-in defaults apply.
    package var configurationFiles: [String]
    /// nil: nowhere to keep state (not root, and neither `$XDG_STATE_HOME` nor `$HOME` is an
    /// absolute path); `[state] directory` must then name one.
    package var stateDirectory: String?
    /// Where the running client serves the bar status (`aiden-phone status`):
    /// `$XDG_RUNTIME_DIR/aiden-phone/status.sock`, in the person's own runtime directory (gone at logout; the user
    /// unit's `RuntimeDirectory=`); nil without one (the system unit, a shell with no session): no bar status.
    package var statusSocket: String?

    package static let systemConfigurationFile = "/etc/aiden/phone.toml"
    package static let systemStateDirectory = "/var/lib/aiden-phone"
    /// The configuration's name under a configuration directory (`/etc`, `$XDG_CONFIG_HOME`).
    package static let configurationName = "aiden/phone.toml"
    /// The state directory's name under a state directory (`/var/lib`, `$XDG_STATE_HOME`).
    package static let stateName = "aiden-phone"
    /// The bar status socket's path under `$XDG_RUNTIME_DIR`.
    package static let statusSocketName = "aiden-phone/status.sock"

    package init(configurationFiles: [String], stateDirectory: String?, statusSocket: String? = nil) {
        self.configurationFiles = configurationFiles
        self.stateDirectory = stateDirectory
        self.statusSocket = statusSocket
    }

    /// `isRoot`: the effective user id is 0. `environment`: the process environment.
    package static func resolve(isRoot: Bool, environment: [String: String]) -> PhonePaths {
        let home = absolute(environment["HOME"])
        let configurationFiles: [String]
        if let directory = firstAbsolute(environment["CONFIGURATION_DIRECTORY"]) {
            // ConfigurationDirectory=aiden gives /etc/aiden: the file is directly in it.
            configurationFiles = [directory + "/phone.toml"]
        } else if isRoot {
            configurationFiles = [systemConfigurationFile]
        } else {
            let user = absolute(environment["XDG_CONFIG_HOME"]) ?? home.map { joined($0, ".config") }
            configurationFiles = (user.map { [joined($0, configurationName)] } ?? []) + [systemConfigurationFile]
        }
        let stateDirectory: String?
        if let directory = firstAbsolute(environment["STATE_DIRECTORY"]) {
            stateDirectory = directory
        } else if isRoot {
            stateDirectory = systemStateDirectory
        } else {
            let base = absolute(environment["XDG_STATE_HOME"]) ?? home.map { joined($0, ".local/state") }
            stateDirectory = base.map { joined($0, stateName) }
        }
        return PhonePaths(
            configurationFiles: configurationFiles, stateDirectory: stateDirectory,
            statusSocket: absolute(environment["XDG_RUNTIME_DIR"]).map { joined($0, statusSocketName) })
    }

    /// The value if it is an absolute path (trailing slashes dropped, `/` kept); nil when unset,
    /// empty or relative.
    static func absolute(_ value: String?) -> String? {
        guard let value, value.hasPrefix("/") else { return nil }
        var path = Substring(value)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    /// systemd lists one directory per name, separated by colons; aiden-phone's units name one.
    static func firstAbsolute(_ value: String?) -> String? {
        absolute(value?.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init))
    }

    static func joined(_ base: String, _ name: String) -> String {
        base == "/" ? "/" + name : base + "/" + name
    }
}
