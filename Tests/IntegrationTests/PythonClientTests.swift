import Foundation
import Testing

/// The Python client (clients/python) as an agent author gets it: installed with pip into a fresh
/// virtual environment (Debian's python3, setuptools and wheel; no network), then its unittest suite run
/// against a real aiden-board over the Unix socket.
@Suite(.serialized) struct PythonClientTests {
    static let python = "/usr/bin/python3"
    static let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("clients/python").path

    @Test func installsWithPipAndPassesItsTestsAgainstTheRealBoard() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.python), "python3 missing: run scripts/install-deps")
        let scratch = try Scratch("aiden-python")
        // pip builds in the source tree (build/, *.egg-info): build a copy, leave the checkout clean.
        let source = scratch.path + "/source"
        try FileManager.default.copyItem(atPath: Self.client, toPath: source)
        let venv = scratch.path + "/venv"
        let pipEnvironment = [
            "HOME": scratch.path, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_CACHE_DIR": "1",
            "PIP_NO_INPUT": "1",
        ]
        let created = try runCommand(Self.python, ["-m", "venv", "--system-site-packages", venv], timeoutSeconds: 120)
        #expect(created.status == 0, "python3 -m venv: \(created.error) (python3-venv: scripts/install-deps)")
        let installed = try runCommand(
            venv + "/bin/python", ["-m", "pip", "install", "--no-index", "--no-build-isolation", source],
            environment: pipEnvironment, timeoutSeconds: 180)
        #expect(installed.status == 0, "pip install: \(installed.output) \(installed.error)")
        let location = try runCommand(
            venv + "/bin/python", ["-c", "import aidenbridge; print(aidenbridge.__file__, aidenbridge.__version__)"],
            environment: ["HOME": scratch.path])
        #expect(location.output.hasPrefix(venv + "/lib/"), "the installed package, not the sources: \(location.output)")
        #expect(location.output.hasSuffix(" 0.1.0\n"))

        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        // Run from the tests directory of the copy: `src/` is not on the path, so the tests import the installed package.
        let tests = try runCommand(
            "/usr/bin/env",
            ["-C", source + "/tests", venv + "/bin/python", "-m", "unittest", "discover", "-s", ".", "-v"],
            environment: [
                "HOME": scratch.path, "AIDEN_TEST_BOARD_SOCKET": board.socketPath,
                // The phone listener, on loopback in the test board: where the tests post the person's answers.
                "AIDEN_TEST_BOARD_HTTP": "127.0.0.1:\(board.port)",
            ], timeoutSeconds: 120)
        #expect(tests.status == 0, "python -m unittest:\n\(tests.error)")
        let summary = tests.error.split(separator: "\n").map(String.init)
        let ran = summary.first { $0.hasPrefix("Ran ") }
        #expect(ran.flatMap { Int($0.split(separator: " ")[1]) }.map { $0 >= 20 } == true, "\(ran ?? tests.error)")
        #expect(summary.last == "OK", "every test ran and passed, none skipped: \(summary.suffix(3))")
        #expect(!tests.error.contains("skipped"))
    }
}
