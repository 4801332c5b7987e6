import Testing

@testable import Platform

@Suite struct PathSyntaxTests {
    @Test(arguments: [
        ("/var/lib/aiden-board/wake.json", "/var/lib/aiden-board"),
        ("/wake.json", "/"),
        ("wake.json", "."),
        ("state/wake.json", "state"),
        ("/a/b/", "/a"),
        ("/a//b", "/a"),
        ("/", "/"),
    ])
    func parentDirectory(path: String, parent: String) {
        #expect(PathSyntax.parentDirectory(of: path) == parent)
    }

    @Test(arguments: [
        ("/var/lib/aiden", ["/var", "/var/lib", "/var/lib/aiden"]),
        ("state/wake", ["state", "state/wake"]),
        ("./state", ["state"]),
        ("/", []),
    ])
    func directoryPrefixes(path: String, prefixes: [String]) {
        #expect(PathSyntax.directoryPrefixes(of: path) == prefixes)
    }
}
