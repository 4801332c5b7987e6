/// A parsed TOML file: its tables in file order, each with its entries in file order.
///
/// Keys written before the first `[table]` header live in the root table, named `""`.
/// Order is kept so that semantic checks report the first problem in the file first.
package struct TOMLDocument: Equatable, Sendable {
    /// One `[name]` section.
    package struct Table: Equatable, Sendable {
        package let name: String
        /// The header's line; nil for the root table, which has no header.
        package let line: Int?
        package internal(set) var entries: [TOMLEntry]

        package init(name: String, line: Int?, entries: [TOMLEntry] = []) {
            self.name = name
            self.line = line
            self.entries = entries
        }

        package subscript(key: String) -> TOMLEntry? {
            entries.first { $0.key == key }
        }
    }

    /// The file name used in error messages.
    package let file: String
    /// The root table first (possibly empty), then each `[table]` in file order.
    package internal(set) var tables: [Table]

    package init(file: String, tables: [Table]) {
        self.file = file
        self.tables = tables
    }

    /// Parses `text`; `file` names the source in errors (`board.toml:3: …`).
    package init(parsing text: String, file: String) throws(ConfigurationError) {
        var parser = TOMLParser(text: text, file: file)
        self = try parser.parseDocument()
    }

    package subscript(table name: String) -> Table? {
        tables.first { $0.name == name }
    }
}
