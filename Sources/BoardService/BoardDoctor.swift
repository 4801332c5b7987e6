import Configuration
import NetworkAddress

#if canImport(Glibc)
import Glibc
#endif

/// `aiden-board doctor`: looks at configuration, state directory, ECM addresses, the agent socket
/// and the Wake transport, and prints one line per finding with the fix. Reads only; opens no
/// network connection (only the agent's Unix socket, to see whether the daemon answers).
package enum BoardDoctor {
    package struct Finding: Equatable, Sendable, CustomStringConvertible {
        package enum Severity: String, Sendable { case ok, info, problem }

        package var severity: Severity
        package var message: String
        package var fix: String?

        package var description: String {
            "\(severity.rawValue): \(message)" + (fix.map { " (fix: \($0))" } ?? "")
        }
    }

    package static func examine(
        configPath: String, explicitConfig: Bool,
        interfaces: LocalInterfaces = .current(),
        routeTable: String? = readIPv4RouteTable()
    ) -> [Finding] {
        var findings: [Finding] = []
        let configuration: BoardConfiguration
        do {
            configuration = try BoardConfiguration.load(path: configPath)
            findings.append(Finding(severity: .ok, message: "configuration \(configPath) is valid"))
        } catch  where error.kind == .fileNotFound && !explicitConfig {
            configuration = .defaults
            findings.append(Finding(severity: .info, message: "no \(configPath): the built-in defaults apply"))
        } catch {
            findings.append(Finding(severity: .problem, message: "\(error)", fix: "correct \(configPath)"))
            return findings
        }
        findings.append(stateDirectory(configuration.state.directory))
        findings += listenAddresses(configuration.http.listen, interfaces: interfaces)
        findings += routeCollisions(configuration, interfaces: interfaces, routeTable: routeTable)
        findings.append(agentSocket(configuration.agent.socket))
        findings.append(wakeTransport(configuration))
        return findings
    }

    static func stateDirectory(_ path: String) -> Finding {
        if access(path, W_OK | X_OK) == 0 {
            return Finding(severity: .ok, message: "state directory \(path) is writable")
        }
        if errno == ENOENT {
            let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
            if access(parent.isEmpty ? "/" : parent, W_OK | X_OK) == 0 {
                return Finding(
                    severity: .info, message: "state directory \(path) does not exist yet; it is made on start")
            }
        }
        return Finding(
            severity: .problem, message: "state directory \(path) is not writable: \(String(cString: strerror(errno)))",
            fix: "create it for the daemon's user (systemd: StateDirectory=aiden-board)")
    }

    static func listenAddresses(_ listen: [SocketEndpoint], interfaces: LocalInterfaces) -> [Finding] {
        listen.map { endpoint in
            let address = endpoint.address
            if address.isUnspecified {
                return Finding(
                    severity: .info, message: "listening on \(endpoint): every interface, access policy decides")
            }
            if address.isLoopback {
                return Finding(severity: .ok, message: "listening on \(endpoint) (loopback)")
            }
            guard let entry = interfaces.interface(holding: address) else {
                return Finding(
                    severity: .problem,
                    message: "\(address) (listen \(endpoint)) is not on any interface: the USB ECM link is down",
                    fix: "plug in the phone, run 'aiden-board gadget up', and give the gadget interface "
                        + "\(address)/24 (systemd-networkd file in the README)")
            }
            guard entry.isUp && entry.isRunning else {
                return Finding(
                    severity: .problem, message: "\(address) is on \(entry.name), which has no carrier",
                    fix: "check the USB cable and that the phone host brought its side up")
            }
            return Finding(severity: .ok, message: "\(address) is on \(entry.name), up")
        }
    }

    static func agentSocket(_ path: String) -> Finding {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            return Finding(severity: .info, message: "no agent socket at \(path): aiden-board is not running")
        }
        guard status.st_mode & S_IFMT == S_IFSOCK else {
            return Finding(
                severity: .problem, message: "\(path) exists but is not a socket",
                fix: "remove it; aiden-board creates the socket on start")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if connected == 0 {
            return Finding(severity: .ok, message: "aiden-board answers on \(path)")
        }
        if errno == EACCES {
            return Finding(
                severity: .problem, message: "no permission to use \(path)",
                fix: "add the agent's user to the 'aiden' group")
        }
        return Finding(
            severity: .problem, message: "\(path) is a stale socket (\(String(cString: strerror(errno))))",
            fix: "start aiden-board (systemctl start aiden-board); it replaces the stale socket")
    }

    static func wakeTransport(_ configuration: BoardConfiguration) -> Finding {
        switch configuration.wake.transport {
        case .loopback:
            return Finding(
                severity: .ok, message: "wake transport: loopback UDP to \(configuration.wake.loopbackTarget)")
        case .bluez:
            return BlueZDoctor.examine(adapter: configuration.wake.adapter, agentSocket: configuration.agent.socket)
        }
    }
}
