/// Plain string path helpers shared by the file systems, so the real and the in-memory one
/// agree on what "the directory of a path" is.
package enum PathSyntax {
    /// The directory holding `path`: `"/a/b" -> "/a"`, `"/a" -> "/"`, `"a" -> "."`.
    package static func parentDirectory(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        if slash == trimmed.startIndex { return "/" }
        return trimmingTrailingSlashes(String(trimmed[..<slash]))
    }

    /// Each directory from the top down to `path` itself: `"/a/b" -> ["/a", "/a/b"]`,
    /// `"a/b" -> ["a", "a/b"]`. The root and "." are not listed: they always exist.
    package static func directoryPrefixes(of path: String) -> [String] {
        let trimmed = trimmingTrailingSlashes(path)
        let absolute = trimmed.hasPrefix("/")
        var prefixes: [String] = []
        var current: String? = absolute ? "" : nil
        for component in trimmed.split(separator: "/") where component != "." {
            let next = current.map { "\($0)/\(component)" } ?? String(component)
            prefixes.append(next)
            current = next
        }
        return prefixes
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var result = Substring(path)
        while result.count > 1, result.hasSuffix("/") { result = result.dropLast() }
        return String(result)
    }
}
