import Foundation
import Testing

/// `scripts/check-links`: the repository passes, and in a small tree each kind of broken reference is
/// reported with its file, line and target, while a clean tree passes.
@Suite struct LinkCheckTests {
    /// A tree with a protocol page, a README and a source file whose references all resolve.
    static let cleanTree: [String: String] = [
        "README.md": """
        # Fixture

        See [the protocol](docs/protocol.md), [its envelope](docs/protocol.md#21-the-envelope),
        [the section below](#running-it), and `scripts/run`.

        ## Running it

        `docs/protocol.md §2.1` has the bytes.
        """,
        "docs/protocol.md": """
        # Protocol

        ## 1. The flow

        ## 2. The Wake

        ### 2.1 The envelope

        ```
        # not a heading
        ```

        As §2.1 says, and [the README](../README.md#fixture).
        """,
        "scripts/run": "#!/bin/sh\n# Reads docs/protocol.md §2 and Sources/Core/Envelope.swift.\nexit 0\n",
        "Sources/Core/Envelope.swift": "/// The 12 bytes (docs/protocol.md §2.1).\nstruct Envelope {}\n",
    ]

    /// Runs the checker on `files` written into a scratch directory.
    static func check(_ files: [String: String]) throws -> CommandResult {
        let scratch = try Scratch("aiden-links")
        for (relative, text) in files {
            let path = "\(scratch.path)/\(relative)"
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        return try run("/usr/bin/python3", ["\(Repository.root)/scripts/check-links", scratch.path])
    }

    @Test func theRepositoryHasNoBrokenReference() throws {
        let result = try run("/usr/bin/python3", ["\(Repository.root)/scripts/check-links"])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.isEmpty)
    }

    @Test func aCleanTreePasses() throws {
        let result = try Self.check(Self.cleanTree)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.isEmpty)
    }

    /// Each broken reference, added to the clean tree, and the one line that must name it.
    @Test(arguments: [
        ("docs/guide.md", "Read [the API](api.md) first.\n", "docs/guide.md:1: broken link: api.md"),
        (
            "docs/guide.md", "# Guide\n\nSee [envelope](protocol.md#22-the-envelope).\n",
            "docs/guide.md:3: no such anchor: docs/protocol.md#22-the-envelope"
        ),
        ("docs/guide.md", "# Guide\n\n[Up](#guid)\n", "docs/guide.md:3: no such anchor: docs/guide.md#guid"),
        (
            "Sources/Core/Filter.swift", "/// New iff the epoch changed (docs/protocol.md §2.5).\nstruct Filter {}\n",
            "Sources/Core/Filter.swift:1: no such numbered section: docs/protocol.md §2.5"
        ),
        (
            "Sources/Core/Filter.swift", "struct Filter {}  // see Sources/Core/Missing.swift\n",
            "Sources/Core/Filter.swift:1: no such file in the repository: Sources/Core/Missing.swift"
        ),
        (
            "scripts/other", "#!/bin/sh\n# the rules are in docs/rules.md\n",
            "scripts/other:2: no such file in the repository: docs/rules.md"
        ),
        (
            "docs/guide.md", "The design is in [the notes](../.." + "/shared/notes.md).\n",
            "docs/guide.md:1: a path outside the repository: .." + "/shared"
        ),
        (
            "Sources/Core/Filter.swift", "/// As the " + "CONT" + "RACT.md §2 says.\nstruct Filter {}\n",
            "Sources/Core/Filter.swift:1: a citation of a document outside the repository:"
        ),
        (
            "Tests/guest.sh", "# run with /" + "work/lab/run.sh\n",
            "Tests/guest.sh:1: a path of the development machine: /" + "work/"
        ),
    ])
    func aBrokenReferenceIsReported(file: String, text: String, expected: String) throws {
        var files = Self.cleanTree
        files[file] = text
        let result = try Self.check(files)
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "\(result.output)")
        #expect(lines.first?.hasPrefix(expected) == true, "\(result.output)")
        #expect(result.error.contains("1 broken reference"))
    }
}
