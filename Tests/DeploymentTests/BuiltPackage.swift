import Foundation

/// One `.deb` that `scripts/package` built, read with `dpkg-deb`: what it installs, its control
/// fields and its control files (maintainer scripts, conffiles).
struct BuiltPackage {
    /// The directory scripts/test names after running `scripts/package` (its `dist/`); unset, the
    /// package tests do not run (a plain `swift test` has built no package).
    static var directory: String? { ProcessInfo.processInfo.environment["AIDEN_PACKAGES_DIR"] }

    let name: String
    let path: String
    /// Every file and link it installs (not directories), as relative paths ("usr/bin/aidenctl").
    let files: Set<String>

    /// `NAME_*.deb` in `directory`: exactly one, or an error naming what is there.
    init(_ name: String) throws {
        guard let directory = Self.directory else { throw DeploymentTestError("AIDEN_PACKAGES_DIR is not set") }
        let matches = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix("\(name)_") && $0.hasSuffix(".deb") }
        guard matches.count == 1 else {
            throw DeploymentTestError("expected one \(name)_*.deb in \(directory), found \(matches)")
        }
        self.name = name
        path = "\(directory)/\(matches[0])"
        let listing = try Self.dpkgDeb(["--contents", path])
        files = try Set(
            listing.split(separator: "\n").compactMap { line -> String? in
                // "-rw-r--r-- root/root 1234 2026-12-01 14:50 ./usr/bin/aidenctl" (a link adds " -> target").
                let columns = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
                guard columns.count == 6, let type = columns[0].first else {
                    throw DeploymentTestError("cannot read dpkg-deb --contents line: \(line)")
                }
                guard type != "d" else { return nil }
                let entry = String(columns[5].split(separator: " -> ").first ?? "")
                guard entry.hasPrefix("./") else { throw DeploymentTestError("unexpected path in \(line)") }
                return String(entry.dropFirst(2))
            })
    }

    /// A control field (`dpkg-deb --field`), without its trailing newline.
    func field(_ field: String) throws -> String {
        try Self.dpkgDeb(["--field", path, field]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `Depends:` as its package names ("libc6 (>= 2.34)" counts as "libc6"; an alternative counts
    /// each of its names).
    func dependencies() throws -> Set<String> {
        Set(
            try field("Depends").split(separator: ",").flatMap { $0.split(separator: "|") }.map {
                String($0.trimmingCharacters(in: .whitespaces).prefix { $0 != " " && $0 != "(" && $0 != ":" })
            })
    }

    /// A control file (`postinst`, `conffiles`, …), or nil when the package has none.
    func controlFile(_ member: String) throws -> String? {
        let scratch = try Scratch("aiden-control")
        _ = try Self.dpkgDeb(["--control", path, scratch.path])
        let file = "\(scratch.path)/\(member)"
        guard FileManager.default.fileExists(atPath: file) else { return nil }
        return try String(contentsOfFile: file, encoding: .utf8)
    }

    /// Unpacks the package's files into `root` (`dpkg-deb --extract`).
    func extract(into root: String) throws {
        _ = try Self.dpkgDeb(["--extract", path, root])
    }

    private static func dpkgDeb(_ arguments: [String]) throws -> String {
        guard let dpkgDeb = tool("/usr/bin/dpkg-deb") else { throw DeploymentTestError("no /usr/bin/dpkg-deb") }
        let result = try run(dpkgDeb, arguments)
        guard result.status == 0 else {
            throw DeploymentTestError("dpkg-deb \(arguments.joined(separator: " ")): \(result.error)")
        }
        return result.output
    }
}
