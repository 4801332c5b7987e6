import Configuration
import ConfigurationFiles
import Doctor
import FoundationEssentials
import NetworkAddress
import Platform

/// `aiden-board doctor`: looks at configuration, state directory, ECM addresses, the agent socket
/// and the Wake transport, and prints one line per finding with the fix. Reads only; opens no
/// network connection (only the agent's Unix socket, to see whether the daemon answers).
package enum BoardDoctor {
    package static func examine(
        configPath: String, explicitConfig: Bool,
        interfaces: LocalInterfaces = .current(),
        routeTable: String? = KernelRoute.readTable()
    ) -> [DoctorFinding] {
        checks(configPath: configPath, explicitConfig: explicitConfig, interfaces: interfaces, routeTable: routeTable)
            .map(\.finding)
    }

    /// The findings, each with the name of its check (`doctor --json`).
    package static func checks(
        configPath: String, explicitConfig: Bool,
        interfaces: LocalInterfaces = .current(),
        routeTable: String? = KernelRoute.readTable()
    ) -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let configuration: BoardConfiguration
        do {
            configuration = try BoardConfiguration.load(path: configPath)
            checks.append(DoctorCheck("configuration", .ok("configuration \(configPath) is valid")))
        } catch  where error.kind == .fileNotFound && !explicitConfig {
            configuration = .defaults
            checks.append(DoctorCheck("configuration", .info("no \(configPath): the built-in defaults apply")))
        } catch {
            checks.append(DoctorCheck("configuration", .problem("\(error)", fix: "correct \(configPath)")))
            return checks
        }
        checks.append(DoctorCheck("state_directory", stateDirectory(configuration.state.directory)))
        checks += DoctorCheck.named("listen", listenAddresses(configuration.http.listen, interfaces: interfaces))
        checks += DoctorCheck.named(
            "subnet_collisions", routeCollisions(configuration, interfaces: interfaces, routeTable: routeTable))
        checks.append(DoctorCheck("agent_socket", agentSocket(configuration.agent.socket)))
        if let clock = clock(status: BlueZDoctor.statusBody(agentSocket: configuration.agent.socket)) {
            checks.append(DoctorCheck("clock", clock))
        }
        checks.append(DoctorCheck("wake_transport", wakeTransport(configuration)))
        return checks
    }

    static func stateDirectory(_ path: String) -> DoctorFinding {
        DirectoryAccess.check(path).finding(
            stateDirectory: path, fix: "create it for the daemon's user (systemd: StateDirectory=aiden-board)")
    }

    static func listenAddresses(_ listen: [SocketEndpoint], interfaces: LocalInterfaces) -> [DoctorFinding] {
        listen.map { endpoint in
            let address = endpoint.address
            if address.isUnspecified {
                return .info("listening on \(endpoint): every interface, access policy decides")
            }
            if address.isLoopback {
                return .ok("listening on \(endpoint) (loopback)")
            }
            guard let entry = interfaces.interface(holding: address) else {
                return .problem(
                    "\(address) (listen \(endpoint)) is not on any interface: the USB ECM link is down",
                    fix: "plug in the phone, run 'aiden-board gadget up', and give the gadget interface "
                        + "\(address)/24 (systemd-networkd file in the README)")
            }
            guard entry.isUp && entry.isRunning else {
                return .problem(
                    "\(address) is on \(entry.name), which has no carrier",
                    fix: "check the USB cable and that the phone host brought its side up")
            }
            return .ok("\(address) is on \(entry.name), up")
        }
    }

    static func agentSocket(_ path: String) -> DoctorFinding {
        switch UnixSocketProbe.probe(path) {
        case .absent:
            return .info("no agent socket at \(path): aiden-board is not running")
        case .notASocket:
            return .problem(
                "\(path) exists but is not a socket", fix: "remove it; aiden-board creates the socket on start")
        case .answers:
            return .ok("aiden-board answers on \(path)")
        case let .refused(error) where error.isPermissionDenied:
            return .problem("no permission to use \(path)", fix: "add the agent's user to the 'aiden' group")
        case let .refused(error):
            return .problem(
                "\(path) is a stale socket (\(error.reason))",
                fix: "start aiden-board (systemctl start aiden-board); it replaces the stale socket")
        }
    }

    /// Which clock the running daemon stamps with (`/v1/status` → `clock`); nil when it does not answer (the
    /// agent socket's finding says why) or predates the member.
    package static func clock(status body: Data?) -> DoctorFinding? {
        struct Status: Decodable {
            struct Clock: Decodable {
                let source: String
                let offsetSeconds: Int

                enum CodingKeys: String, CodingKey {
                    case source
                    case offsetSeconds = "offset_seconds"
                }
            }
            let clock: Clock?
        }
        guard let body, let clock = (try? JSONDecoder().decode(Status.self, from: body))?.clock else { return nil }
        switch clock.source {
        case "board":
            return .ok("clock: timestamps follow the board's own clock")
        case "phone":
            return .info(
                "clock: the board's clock is unset or far off (\(clock.offsetSeconds) s from the phone's): timestamps "
                    + "follow the phone's clock; retention and staleness run on elapsed time either way",
                fix: "set the board's clock (an RTC, or NTP when the board has a network) to stamp with its own")
        default:
            return .info("clock: aiden-board names a clock source this doctor does not know")
        }
    }

    static func wakeTransport(_ configuration: BoardConfiguration) -> DoctorFinding {
        switch configuration.wake.transport {
        case .loopback:
            return .ok("wake transport: loopback UDP to \(configuration.wake.loopbackTarget)")
        case .bluez:
            return BlueZDoctor.examine(adapter: configuration.wake.adapter, agentSocket: configuration.agent.socket)
        }
    }
}
