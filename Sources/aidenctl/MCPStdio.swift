import AgentCLI
import Platform

/// `aidenctl mcp`'s loop: each line of stdin to `MCPServer`, each answer as one line on stdout, until stdin
/// ends (the client closed it: exit 0). A call runs to its end before the next line is read; none outlives a
/// board that went away (each request has its time limit).
enum MCPStdio {
    static func serve(_ server: MCPServer) -> Never {
        var server = server
        // A client that went away must not kill us with SIGPIPE mid-answer: the write fails and we end.
        CurrentProcess.ignoreBrokenPipes()
        while let line = readLine(strippingNewline: true) {
            guard let answer = server.handle(line) else { continue }
            if !OutputDescriptor.standardOutput.write(answer + "\n") { CurrentProcess.exit(ExitCode.ok.rawValue) }
        }
        CurrentProcess.exit(ExitCode.ok.rawValue)
    }
}
