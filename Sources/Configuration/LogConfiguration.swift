/// The `[log]` table, shared by both daemons (docs/configuration.md).
package struct LogConfiguration: Equatable, Sendable {
    /// Names match syslog severities; the executable maps them to its logger's level.
    package enum Level: String, Equatable, Sendable, CaseIterable {
        case error, warning, notice, info, debug
    }

    package var level: Level = .info

    package init(level: Level = .info) {
        self.level = level
    }

    mutating func apply(_ field: ConfigurationField) throws(ConfigurationError) {
        switch field.name {
        case "level": level = try field.oneOf(Level.self)
        default: throw field.unknownKey(known: ["level"])
        }
    }
}
