import BoardAPI
import Configuration
import ConfigurationFiles
import Doctor
import FoundationEssentials
import HTTPServer
import Logging
import NetworkAddress
import Platform
import ServiceManager
import WakeProtocol

/// Starts aiden-board: configuration, state, Wake transport, listeners, then systemd readiness,
/// the watchdog and a graceful SIGTERM. Returns an exit status only when it could not start.
package enum BoardDaemon {
    /// EX_CONFIG: the configuration is wrong.
    package static let configurationExitCode: Int32 = 78

    package static func run(configPath: String, explicitConfig: Bool) -> Int32 {
        // Entries with fields to the journal when stderr is the journal, plain lines on a terminal (Journal.sink).
        let logSink = Journal.sink(identifier: "aiden-board")
        let bootstrap = Logger(component: "aiden-board", entries: logSink)
        // Blocked before any thread starts, taken by this thread once the board runs: a SIGTERM (or SIGINT,
        // SIGQUIT, SIGHUP) at any moment, even during start-up or right after READY=1, stops the board cleanly,
        // its pending writes flushed.
        let signals = SignalWaiter.block(SignalWaiter.stopping)
        let configuration: BoardConfiguration
        do {
            configuration = try BoardConfiguration.load(path: configPath)
        } catch  where error.kind == .fileNotFound && !explicitConfig {
            bootstrap.notice("no \(configPath); using the built-in defaults")
            configuration = .defaults
        } catch {
            bootstrap.error("\(error)")
            return configurationExitCode
        }
        let logger = Logger(
            component: "aiden-board",
            minimumLevel: LogLevel(name: configuration.log.level.rawValue) ?? .info, entries: logSink)
        do {
            let runtime = SerialRuntime(label: "aiden.board")
            let running = try start(configuration, logger: logger, runtime: runtime)
            // The watchdog lives until the process exits: alive while no writer job runs too long and
            // the executor takes a probe in time (a stuck BlueZ timer would show there).
            let engine = running.engine
            let watchdog = Watchdog.start(label: "aiden.board.watchdog", logger: logger) {
                engine.isResponsive() && runtime.isResponsive(within: .seconds(20))
            }
            withExtendedLifetime(watchdog) {
                signals.wait { number in
                    logger.notice("\(SignalNumber.name(of: number)): stopping")
                    stop(running, logger: logger)
                    CurrentProcess.exit(0)
                }
            }
        } catch {
            logger.error("\(error)")
            return error.exitCode
        }
    }

    /// Everything that runs until SIGTERM.
    package struct Running: Sendable {
        package let engine: BoardEngine
        package let phoneServer: HTTPServer
        package let agentServer: HTTPServer
        package let agentSocketPath: String
        /// The state directory's lock, held until the process exits.
        package let stateLock: FileLock
    }

    /// Opens state, transport and listeners, answers READY=1. It starts no thread itself: the ones that run are
    /// the runtime's executor (the engine's writer) and the queue its spawned bus calls run on, each listening
    /// socket's server loop thread (which keeps its own deadlines, with no timer), the engine's pairing lane, and
    /// with `[wake] transport = "bluez"` the D-Bus connection's thread (`run` adds the watchdog's timer queue when
    /// the unit asks for a watchdog).
    package static func start(
        _ configuration: BoardConfiguration, logger: Logger,
        runtime: any Runtime = SerialRuntime(label: "aiden.board")
    ) throws(BoardStartError) -> Running {
        CurrentProcess.ignoreBrokenPipes()
        let directory = BoardStateDirectory(path: configuration.state.directory)
        var random = SystemRandomNumberGenerator()
        let stateLock: FileLock
        let loaded: BoardStateDirectory.Loaded
        do {
            // Before anything is read: two boards on one directory would overwrite each other.
            stateLock = try directory.lock()
            loaded = try directory.load(now: runtime.wallNow(), using: &random)
        } catch {
            throw .state(error)
        }
        for note in loaded.notes { logger.error(note) }
        logger.info(
            "state \(directory.path): epoch \(loaded.wake.epoch)\(loaded.isNewEpoch ? " (new)" : ""), "
                + "\(loaded.store.count) tasks, sequence mark \(loaded.wake.sequenceHighWater)")

        let sink = try makeSink(configuration, loaded: loaded, runtime: runtime, logger: logger)
        let listen = configuration.http.listen
        let engine = BoardEngine(
            settings: BoardEngine.Settings(
                version: BuildInfo.version, liveActivityEnabled: configuration.liveActivity.enabled,
                retention: .seconds(configuration.liveActivity.retentionSeconds),
                coalesceWindow: .milliseconds(configuration.wake.coalesceMilliseconds)),
            loaded: loaded, directory: directory,
            policy: AccessPolicy(
                allowedSubnets: configuration.http.allowedSubnets,
                listenAddresses: listen.map(\.address), interface: configuration.http.interface),
            sink: sink, runtime: runtime, logger: logger.child("engine"),
            usbFacts: {
                let link = LocalInterfaces.current().usbLink(listen: listen)
                return USBLinkFacts(link: link.link, interface: link.interface)
            },
            boardAddresses: { LocalInterfaces.read()?.entries.map(\.address) })

        let ecmSockets: [ListeningSocket]
        do {
            ecmSockets = try ecmListeners(listen, inherited: Systemd.listenDescriptors(), logger: logger)
        } catch {
            throw .listen(error)
        }
        let agentSocket: ListeningSocket
        do {
            agentSocket = try openAgentSocket(configuration.agent.socket, logger: logger)
        } catch {
            ecmSockets.forEach { $0.close() }
            throw .listen(error)
        }
        let phoneServer: HTTPServer
        let agentServer: HTTPServer
        do {
            phoneServer = try HTTPServer(
                sockets: ecmSockets, limits: HTTPServerLimits(maxHeaderBytes: 8 * 1024),
                admission: HTTPServerAdmission(
                    refuseConnection: { engine.refusePhoneConnection(peer: $0, local: $1, interface: $2) },
                    admitHeaders: { engine.admitPhone($0) }),
                // The server hands over only requests whose headers `admitPhone` passed.
                replying: { engine.handlePhone($0, admitted: true) })
        } catch {
            agentSocket.close()
            throw .server(error)
        }
        do {
            let limits = HTTPServerLimits(
                connectionLimit: 32, perPeerConnectionLimit: 8, idleTimeoutSeconds: 30, requestDeadline: .seconds(10),
                headerDeadline: .seconds(10))
            agentServer = try HTTPServer(
                sockets: [agentSocket], limits: limits,
                admission: HTTPServerAdmission(refusedProcess: { peer, open in
                    engine.refusedAgentConnection(peer, open: open, limit: limits.perPeerConnectionLimit)
                }),
                replying: { request in
                    // A long-poll holds its connection, never the socket's thread (docs/protocol.md §6.6).
                    guard AgentRouter.mayWait(request) else { return .now(engine.handleAgent(request)) }
                    return .later { respond in engine.handleAgent(request, respond: respond) }
                })
        } catch {
            phoneServer.stop()
            throw .server(error)
        }
        engine.start()
        let where_ = phoneServer.listeners.map { "\($0)" }.joined(separator: ", ")
        logger.notice(
            "serving \(where_); agent API on \(configuration.agent.socket); "
                + "wake via \(sink.transportName), epoch \(engine.epoch)")
        // Start-up's code is not run again: its pages leave the resident set (`ResidentSet`). Before READY=1, so
        // that what the board runs once it is ready (a first task, say) stays resident, as it is what it runs.
        let trimmed = ResidentSet.trim()
        logger.debug("resident set: \(trimmed / 1_024) KiB of read-only mappings trimmed after start-up")
        Systemd.notify("READY=1\nSTATUS=serving \(where_)")
        // From here on the status says what the board is doing (systemctl status aiden-board).
        engine.reportStatus { Systemd.notifyStatus($0) }
        return Running(
            engine: engine, phoneServer: phoneServer, agentServer: agentServer,
            agentSocketPath: configuration.agent.socket, stateLock: stateLock)
    }

    /// Stops serving, writes what is pending, and removes the agent socket.
    package static func stop(_ running: Running, logger: Logger) {
        Systemd.notify("STOPPING=1")
        running.phoneServer.stop()
        running.agentServer.stop()
        if let error = running.engine.flush() { logger.error("state not fully written at shutdown: \(error)") }
        try? POSIXFileSystem().removeFile(at: running.agentSocketPath)
    }

    private static func makeSink(
        _ configuration: BoardConfiguration, loaded: BoardStateDirectory.Loaded, runtime: any Runtime,
        logger: Logger
    ) throws(BoardStartError) -> any WakeSink {
        switch configuration.wake.transport {
        case .loopback:
            do {
                return try LoopbackWakeSink(
                    target: configuration.wake.loopbackTarget, adapter: configuration.wake.adapter)
            } catch {
                throw .transport("loopback wake socket: \(error)")
            }
        case .bluez:
            do {
                return try BlueZWakeSink(
                    settings: BlueZWakeSink.Settings(
                        adapter: configuration.wake.adapter,
                        characteristicFlags: configuration.wake.characteristicFlags),
                    initialValue: loaded.wake.readValueBeforeFirstWake, runtime: runtime, logger: logger.child("bluez"))
            } catch {
                throw .transport("[wake] \(error)")
            }
        }
    }

    /// The ECM listeners' accept queue (aiden-board.socket's `Backlog=` too): deep enough that while a flood fills
    /// it faster than the server loop accepts (a process on the phone host opening connections in a loop, refused
    /// peers), the phone's connection waits in the queue instead of being dropped and sent again a second later.
    /// 1,024 overflowed for the first 2 s of such a flood in `PhoneHostLockoutTests` (1,600 deep at most since);
    /// 4,096 is the kernel's default `somaxconn`, the most `listen` gets without a sysctl.
    package static let ecmBacklog: Int32 = 4096

    /// The ECM listeners, in `[http] listen`'s order: each one the service manager passed for that endpoint
    /// (socket activation: systemd holds the port while the daemon restarts, so no local user can bind it in
    /// between), else bound here, with `IP_FREEBIND` for an address that is not loopback or a wildcard (the board
    /// starts before the USB link has its address). A passed socket that no endpoint names is closed, said why.
    static func ecmListeners(
        _ listen: [SocketEndpoint], inherited: [Int32], logger: Logger
    ) throws(SocketError) -> [ListeningSocket] {
        var passed: [ListeningSocket] = []
        for descriptor in inherited {
            do {
                passed.append(try ListeningSocket.inherited(descriptor))
            } catch {
                logger.error("socket activation: \(error); closed")
                ListeningSocket.close(inherited: descriptor)
            }
        }
        var sockets: [ListeningSocket] = []
        do throws(SocketError) {
            for endpoint in listen {
                if let index = passed.firstIndex(where: { $0.kind == .tcp(endpoint) }) {
                    sockets.append(passed.remove(at: index))
                    logger.info("\(endpoint): the socket the service manager holds")
                    continue
                }
                let freeBind = !endpoint.address.isLoopback && !endpoint.address.isUnspecified
                sockets.append(try ListeningSocket.tcp(endpoint, backlog: ecmBacklog, freeBind: freeBind))
            }
        } catch {
            (sockets + passed).forEach { $0.close() }
            throw error
        }
        for unused in passed {
            logger.error(
                "socket activation: the service manager passed \(unused.kind), which [http] listen does not name; "
                    + "closed (make the socket unit's ListenStream= and [http] listen agree)")
            unused.close()
        }
        return sockets
    }

    private static func openAgentSocket(_ path: String, logger: Logger) throws(SocketError) -> ListeningSocket {
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let fileSystem = POSIXFileSystem()
        if !parent.isEmpty, !fileSystem.fileExists(at: parent) {
            do {
                try fileSystem.createDirectory(at: parent, permissions: 0o755)
            } catch {
                throw SocketError(operation: "mkdir", address: error.path, errno: error.code)
            }
        }
        // Agents reach the socket through the `aiden` group (docs/protocol.md §6.1); without it, root only.
        let group = CurrentProcess.groupID(named: "aiden")
        if group == nil { logger.notice("no group 'aiden': \(path) is usable by root only") }
        return try ListeningSocket.unix(path: path, mode: 0o660, group: group)
    }
}

/// Why the board could not start, with the exit status to use.
package enum BoardStartError: Error, CustomStringConvertible {
    case state(BoardStateError)
    case transport(String)
    case listen(SocketError)
    case server(HTTPServerError)

    package var description: String {
        switch self {
        case let .state(error): "state directory: \(error)"
        case let .transport(message): "wake transport: \(message)"
        case let .listen(error): "cannot listen: \(error)"
        case let .server(error): "\(error)"
        }
    }

    package var exitCode: Int32 {
        switch self {
        case .transport: BoardDaemon.configurationExitCode
        case .state: 73  // EX_CANTCREAT
        case .listen, .server: 71  // EX_OSERR
        }
    }
}
