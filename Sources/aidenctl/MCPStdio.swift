import AgentCLI

#if canImport(Glibc)
import Glibc
#endif

/// `aidenctl mcp`'s loop: each line of stdin to `MCPServer`, each answer as one line on stdout, until stdin
/// ends (the client closed it: exit 0). A call runs to its end before the next line is read; none outlives a
/// board that went away (each request has its time limit).
enum MCPStdio {
    static func serve(_ server: MCPServer) -> Never {
        var server = server
        // A client that went away must not kill us with SIGPIPE mid-answer: the write fails and we end.
        signal(SIGPIPE, SIG_IGN)
        while let line = readLine(strippingNewline: true) {
            guard let answer = server.handle(line) else { continue }
            if !StandardStream.write(bytes: Array((answer + "\n").utf8)[...], to: 1) { exit(ExitCode.ok.rawValue) }
        }
        exit(ExitCode.ok.rawValue)
    }
}
