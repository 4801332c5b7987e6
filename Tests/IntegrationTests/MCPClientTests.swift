import Foundation
import Testing

/// `aidenctl mcp` as an MCP client sees it: the official MCP Python SDK, pinned and installed with pip into a
/// virtual environment made here, drives it over stdio against a real aiden-board on loopback
/// (Fixtures/mcp_client.py: initialize, every tool's schemas, each tool called, the card changing, a handover
/// answered and stopped through the phone's answer endpoint, the board's refusals and a missing board).
@Suite(.serialized) struct MCPClientTests {
    static let python = "/usr/bin/python3"
    /// The SDK and the pydantic it works with (newer pydantic removed an internal it imports).
    static let packages = ["mcp==1.12.4", "pydantic==2.11.7"]
    static let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mcp_client.py").path

    @Test func theOfficialSDKDrivesEveryToolAgainstTheRealBoard() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.python), "python3 missing: run scripts/install-deps")
        let aidenctl = try #require(Products.path("aidenctl"), "aidenctl not built")
        let scratch = try Scratch("aiden-mcp")
        let venv = scratch.path + "/venv"
        let created = try runCommand(Self.python, ["-m", "venv", venv], timeoutSeconds: 120)
        #expect(created.status == 0, "python3 -m venv: \(created.error) (python3-venv: scripts/install-deps)")
        let installed = try runCommand(
            venv + "/bin/python", ["-m", "pip", "install", "--quiet"] + Self.packages,
            environment: ["HOME": scratch.path, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"],
            timeoutSeconds: 600)
        try #require(installed.status == 0, "pip install \(Self.packages) (PyPI): \(installed.error)")

        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let run = try runCommand(
            venv + "/bin/python", [Self.client, aidenctl, board.socketPath, "127.0.0.1:\(board.port)"],
            environment: ["HOME": scratch.path], timeoutSeconds: 180)
        #expect(run.status == 0, "mcp_client.py:\n\(run.output)\n\(run.error)")
        #expect(run.output.hasSuffix("ok\n"), "\(run.output)")
    }
}
