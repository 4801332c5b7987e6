import Configuration
import ConfigurationFiles

/// `aiden-board config show`: the configuration the daemon would run with (the main file, its drop-ins, the
/// defaults for the rest) as TOML, with a comment on each key naming its file. Exit 0, or 78 (the daemon's
/// configuration exit) with the error when a file is wrong or, named with `--config`, missing.
package enum ConfigShowCommand {
    package struct Outcome: Equatable, Sendable {
        package var exitCode: Int32
        /// On stdout when `exitCode` is 0, else on stderr.
        package var text: String
    }

    package static func run(configPath: String, explicitConfig: Bool) -> Outcome {
        do {
            let loaded = try BoardConfiguration.loadWithSources(path: configPath)
            return Outcome(
                exitCode: 0,
                text: "# aiden-board's effective configuration: \(configPath), its drop-ins in \(configPath).d/, "
                    + "the defaults for the rest\n" + loaded.configuration.toml(sources: loaded.sources))
        } catch  where error.kind == .fileNotFound && !explicitConfig {
            return Outcome(
                exitCode: 0,
                text: "# no \(configPath): aiden-board runs with the built-in defaults\n"
                    + BoardConfiguration.defaults.toml())
        } catch {
            return Outcome(exitCode: BoardDaemon.configurationExitCode, text: "aiden-board: \(error)")
        }
    }
}
