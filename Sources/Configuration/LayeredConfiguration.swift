/// A configuration read from TOML files by one set of rules, the board's and the phone's alike: each file's tables
/// of keys applied onto what came before (the defaults, then the main file, then its drop-ins), a key a later file
/// writes replacing the one before it, and the first problem in file order reported. Each configuration says only
/// which tables it has and what each key sets (`apply(_:table:)`).
protocol LayeredConfiguration {
    static var defaults: Self { get }
    /// The tables a file may contain, in the order the documentation lists them.
    static var tableNames: [String] { get }
    /// Sets what one key of `table` (one of `tableNames`, or "" for a key outside any table) says.
    mutating func apply(_ field: ConfigurationField, table: String) throws(ConfigurationError)
}

extension LayeredConfiguration {
    /// The main file, then its drop-ins in their order (`ConfigurationFile.layers`), onto the defaults.
    static func reading(layers: [(file: String, text: String)]) throws(ConfigurationError) -> Self {
        var configuration = defaults
        for layer in layers { configuration = try reading(layer.text, file: layer.file, onto: configuration) }
        return configuration
    }

    /// `text` applied onto `base`: the keys it writes replace `base`'s, the others stay. `file` names it in errors.
    static func reading(_ text: String, file: String, onto base: Self) throws(ConfigurationError) -> Self {
        let document = try TOMLDocument(parsing: text, file: file)
        var configuration = base
        for table in document.tables {
            try checkTableName(table, file: file, known: tableNames)
            for entry in table.entries {
                try configuration.apply(
                    ConfigurationField(file: file, table: table.name, entry: entry), table: table.name)
            }
        }
        return configuration
    }
}

/// Rejects a `[table]` the configuration does not know, even when it is empty.
func checkTableName(_ table: TOMLDocument.Table, file: String, known: [String]) throws(ConfigurationError) {
    guard !table.name.isEmpty, !known.contains(table.name) else { return }
    throw ConfigurationError(
        kind: .unknownKey, file: file, line: table.line, key: table.name,
        message: "unknown table [\(table.name)] (known: \(known.joined(separator: ", ")))")
}
