import Configuration
import ConfigurationFiles
import Logging
import PhoneCore
import Platform
import ServiceManager
import USBLink
import WireFormat

/// Starts aiden-phone: configuration, state directory, phone id, outputs, USB watcher, Wake source,
/// then the session; runs until SIGTERM, SIGINT, SIGQUIT or SIGHUP. Returns an exit status only when it could not start.
package enum PhoneDaemon {
    /// EX_CONFIG: the configuration is wrong (or asks for what this build cannot do).
    package static let configurationExitCode: Int32 = 78
    /// EX_CANTCREAT: the state directory cannot be used.
    package static let stateExitCode: Int32 = 73
    /// EX_OSERR: a socket or thread could not be opened.
    package static let systemExitCode: Int32 = 71

    /// `configPath`: what `--config` named (it must exist); nil: the standard places (`PhonePaths`).
    package static func run(configPath: String?, json: Bool, environment: [String: String]) -> Int32 {
        CurrentProcess.ignoreBrokenPipes()
        let bootstrap = Logger(component: "aiden-phone", entries: standardErrorSink())
        // Blocked before any thread starts, taken by this thread once the client runs (Platform.SignalWaiter):
        // none is lost, whenever it comes.
        let signals = SignalWaiter.block(
            SignalWaiter.stopping + [SignalNumber.user1, SignalNumber.user2, SignalNumber.windowChanged])
        let paths = PhonePaths.resolve(isRoot: CurrentProcess.isRoot(), environment: environment)
        let loaded: (configuration: PhoneConfiguration, file: String?)
        do {
            loaded = try loadConfiguration(configPath, paths: paths, environment: environment, logger: bootstrap)
        } catch {
            bootstrap.error("\(error)")
            return configurationExitCode
        }
        let configuration = loaded.configuration
        // Keys answer the card's task where the card is drawn in place and standard input is that terminal.
        let keyReader = TerminalKeyReader()
        let terminal: TerminalOutput? =
            json
            ? nil
            : {
                var mode = TerminalOutput.Mode.detect(channel: .standardOutput, environment: environment)
                mode.keys = mode.inPlace && keyReader.isTerminal
                return TerminalOutput(mode: mode)
            }()
        let logger = makeLogger(level: configuration.log.level, terminal: terminal)
        let wiring: Wiring
        do {
            wiring = try wire(
                configuration, file: loaded.file, stateDirectory: configuration.state.directory ?? paths.stateDirectory,
                json: json, terminal: terminal, keyReader: keyReader, logger: logger)
        } catch {
            logger.error("\(error)")
            return error.exitCode
        }
        let client = wiring.client
        let runtime = wiring.runtime
        let watchdog = Watchdog.start(label: "aiden.phone.watchdog", logger: logger) {
            client.isResponsive() && runtime.isResponsive(within: .seconds(10))
        }
        withExtendedLifetime(watchdog) {
            signals.wait { number in handleSignal(number, wiring: wiring, terminal: terminal, logger: logger) }
        }
    }

    /// The running client and what must be stopped at exit.
    struct Wiring: Sendable {
        let client: PhoneClient
        let runtime: SerialRuntime
        let output: any PhoneOutput
        let wakeSource: any WakeSource
        let watcher: USBHotplugWatcher?
        /// The bar status socket, removed at exit.
        let bar: StatusSocket
        let configuration: PhoneConfiguration
        let phoneID: String
        /// Reading keys (the terminal's mode is restored at exit), nil when the card takes none.
        let keyReader: TerminalKeyReader?
    }

    /// The configuration and the file it came from: the explicit one, else the first of the standard
    /// places that exists (nil: none does, the built-in defaults, which `logger` hears of).
    static func loadConfiguration(
        _ explicitPath: String?, paths: PhonePaths, environment: [String: String], logger: Logger? = nil
    )
        throws(ConfigurationError) -> (configuration: PhoneConfiguration, file: String?)
    {
        let candidates = explicitPath.map { [$0] } ?? paths.configurationFiles
        for path in candidates {
            let file: PhoneConfiguration
            do throws(ConfigurationError) {
                file = try PhoneConfiguration.load(path: path)
            } catch {
                guard error.kind == .fileNotFound, explicitPath == nil else { throw error }
                continue
            }
            return (try file.applyingEnvironment(environment), path)
        }
        logger?.notice("no \(candidates.joined(separator: " or ")); using the built-in defaults")
        return (try PhoneConfiguration.defaults.applyingEnvironment(environment), nil)
    }

    private static func makeLogger(level: LogConfiguration.Level, terminal: TerminalOutput?) -> Logger {
        let minimum = LogLevel(name: level.rawValue) ?? .info
        // On a terminal shared by stdout and stderr, log lines go above the card instead of tearing it.
        if let terminal, terminal.mode.inPlace, OutputChannel.standardError.isTerminal {
            return Logger(
                component: "aiden-phone", minimumLevel: minimum, entries: { terminal.printAbove($0.terminalLine) })
        }
        return Logger(component: "aiden-phone", minimumLevel: minimum, entries: standardErrorSink())
    }

    /// Entries with their fields to the journal when stderr is the journal (Journal.sink); otherwise, and when the
    /// journal does not take one, lines through stderr's bounded backlog: a stalled reader (a paused terminal, a
    /// full pipe, a stuck journald) must not stall the executor or the bus thread that logs.
    private static func standardErrorSink() -> Logger.Sink {
        Journal.sink(identifier: "aiden-phone", fallback: { OutputChannel.standardError.write($0) })
    }

    private static func wire(
        _ configuration: PhoneConfiguration, file: String?, stateDirectory: String?, json: Bool,
        terminal: TerminalOutput?, keyReader: TerminalKeyReader, logger: Logger
    ) throws(PhoneStartError) -> Wiring {
        guard let stateDirectory else {
            throw .state(
                PhoneStateError(
                    path: "[state] directory",
                    message: "no place for the state: HOME is not set to an absolute path (nor XDG_STATE_HOME); "
                        + "set one, or name a directory in the configuration"))
        }
        let directory = PhoneStateDirectory(path: stateDirectory)
        var random = SystemRandomNumberGenerator()
        let identity: (id: String, source: PhoneStateDirectory.IDSource, note: String?)
        do {
            try directory.prepare()
            identity = try directory.phoneID(configured: configuration.phone.id, using: &random)
        } catch {
            throw .state(error)
        }
        if let note = identity.note { logger.warning(note) }
        let loaded = directory.loadAlertRecord()
        if let note = loaded.note { logger.warning(note) }

        // The phone's one executor: every input is a step of the session there.
        let runtime = SerialRuntime(label: "aiden.phone")
        let wakeSource = makeWakeSource(configuration, directory: directory, runtime: runtime, logger: logger)
        let output: any PhoneOutput
        let notifiers: [any AlertNotifier]
        // The desktop surfaces share one session bus connection, kept for the client's whole life.
        let sessionBus = SessionBus(runtime: runtime, logger: logger.child("session-bus"))
        // One notification per task.
        let desktop = DesktopCardSurface(runtime: runtime, logger: logger.child("notify"))
        // The tray item (StatusNotifierItem) when a watcher is there, and the dock's launcher entry.
        let tray = TraySurface(runtime: runtime, logger: logger.child("tray"))
        // KDE's job progress, one job view per active task, when a JobViewServer is there.
        let jobs = JobViewSurface(runtime: runtime, logger: logger.child("jobs"))
        // The card as one line for status bars (aiden-phone status), in the person's runtime directory.
        let bar = StatusSocket(runtime: runtime, logger: logger.child("bar"))
        let statusSocket = PhonePaths.resolve(
            isRoot: CurrentProcess.isRoot(), environment: CurrentProcess.environment()
        )
        .statusSocket
        if let terminal {
            output = terminal
            notifiers = [terminal]
        } else {
            let lines = JSONLinesOutput(wallClock: { runtime.wallNow() })
            output = lines
            notifiers = [lines]
        }
        // The return entry: the card when it is drawn where a person looks (a terminal, not a pipe or
        // the journal); notifications once the desktop notifier finds a server.
        let cardOnTerminal = terminal != nil && OutputChannel.standardOutput.isTerminal
        let session = PhoneSession(
            settings: PhoneSession.Settings(phoneID: identity.id, returnEntries: cardOnTerminal ? [.card] : []),
            record: loaded.record)
        let transport = HTTPBoardTransport(board: configuration.board)
        let client = PhoneClient(
            session: session, transport: transport,
            runtime: runtime, output: output, notifiers: notifiers, surfaces: [desktop, bar, tray, jobs],
            saveRecord: { record throws(AtomicWriteError) in try directory.saveAlertRecord(record) },
            logger: logger.child("client"))
        let (watcher, monitoring) = startUSBWatcher(configuration, client: client, wakeSource: wakeSource)
        desktop.onEvents(
            answered: client.submitAnswer,
            // Clicking a card is the person coming back to the task.
            opened: { _ in client.submit(.appState(.foreground)) },
            serverFound: { client.submit(.returnEntryOffered(.notification)) })
        tray.onEvents(
            answered: client.submitAnswer,
            opened: { _ in client.submit(.appState(.foreground)) })
        jobs.onEvents(answered: client.submitAnswer)
        bar.onAnswered { client.submit(.answerRecordedElsewhere) }
        sessionBus.start(environment: CurrentProcess.environment(), surfaces: [desktop, tray, jobs])
        if let statusSocket {
            bar.start(path: statusSocket)
        } else {
            logger.info("no XDG_RUNTIME_DIR: no bar status for aiden-phone status")
        }

        do {
            try wakeSource.start { event in
                switch event {
                case let .value(bytes, fullLength): client.submit(.wakeValue(bytes, fullLength: fullLength))
                case let .state(state, detail): client.submit(.wakeLink(state, detail: detail))
                }
            }
        } catch {
            watcher?.stop()
            throw .wakeSource(error)
        }
        logger.notice(
            "aiden-phone \(BuildInfo.version): board \(configuration.board.url), phone id \(identity.id) "
                + "(\(identity.source.rawValue)), Wakes via \(wakeSource.facts.transport) \(wakeSource.facts.endpoint ?? ""), "
                + "USB \(monitoring) for \(Self.usbID(configuration.usb.vendorID, configuration.usb.productID)), "
                + "configuration \(file ?? "built-in"), state \(directory.path)")
        // Start-up's code is not run again: its pages leave the resident set (`ResidentSet`). Before READY=1, so
        // that what the phone runs once it is ready (its first fetch, say) stays resident, as it is what it runs.
        let trimmed = ResidentSet.trim()
        logger.debug("resident set: \(trimmed / 1_024) KiB of read-only mappings trimmed after start-up")
        Systemd.notify("READY=1\nSTATUS=listening for Wakes via \(wakeSource.facts.transport)")
        client.submit(.started)
        let readingKeys =
            terminal?.mode.keys == true && startKeys(keyReader, client: client, runtime: runtime, terminal: terminal)
        // From here on the status says what the phone follows (systemctl status aiden-phone).
        client.reportStatus { Systemd.notifyStatus($0) }
        if let terminal, terminal.mode.inPlace { redrawEverySecond(terminal, runtime: runtime) }
        return Wiring(
            client: client, runtime: runtime, output: output, wakeSource: wakeSource, watcher: watcher, bar: bar,
            configuration: configuration,
            phoneID: identity.id, keyReader: readingKeys ? keyReader : nil)
    }

    /// The card on a terminal, drawn again each second as of then: its tool line counts the time since the tool
    /// began (`TerminalOutput.redraw(at:)` writes only when a line changed).
    private static func redrawEverySecond(_ terminal: TerminalOutput, runtime: SerialRuntime) {
        _ = runtime.schedule(after: .seconds(1)) {
            terminal.redraw(at: runtime.wallNow())
            redrawEverySecond(terminal, runtime: runtime)
        }
    }

    /// The card's keys: each byte goes to the executor, where `AnswerPrompt` decides against the card
    /// shown; its question and what came of it are printed above the card.
    private static func startKeys(
        _ reader: TerminalKeyReader, client: PhoneClient, runtime: SerialRuntime, terminal: TerminalOutput?
    ) -> Bool {
        let prompt = ExecutorConfined(AnswerPrompt(), on: runtime)
        return reader.start { byte in
            runtime.enqueue {
                let card = client.session.card
                let output = prompt.withValue { $0.press(Character(Unicode.Scalar(byte)), card: card) }
                switch output {
                case .none:
                    break
                case let .show(line):
                    terminal?.printAbove(">> " + line)
                case let .send(answer, requestID, revision):
                    client.submitAnswer(answer, requestID: requestID, revision: revision)
                }
            }
        }
    }

    /// The Wake source of `[wake] transport`. Over BlueZ with the board on a cable (not on loopback), a board
    /// without a bond is paired over that cable, and the board bonded with is remembered in the state
    /// directory (so later starts follow only that board).
    private static func makeWakeSource(
        _ configuration: PhoneConfiguration, directory: PhoneStateDirectory, runtime: SerialRuntime, logger: Logger
    ) -> any WakeSource {
        switch configuration.wake.transport {
        case .loopback:
            return LoopbackWakeSource(endpoint: configuration.wake.loopbackListen)
        case .bluez:
            let overCable = !isLoopback(configuration.board.url)
            let remembered = overCable ? directory.loadBoard() : (address: nil, note: nil)
            if let note = remembered.note { logger.warning(note) }
            let cable =
                overCable
                ? BoardPairingCable(transport: HTTPBoardTransport(board: configuration.board), runtime: runtime)
                : nil
            let writer = Lane("aiden.phone.board")
            return BlueZWakeSource(
                settings: BlueZWakeSource.Settings(
                    adapter: configuration.wake.adapter, boardAddress: configuration.wake.address,
                    rememberedAddress: remembered.address),
                runtime: runtime, logger: logger.child("ble"), cable: cable,
                bonded: { address in
                    let time = runtime.wallNow().formatted(.iso8601)
                    writer.run {
                        do {
                            try directory.saveBoard(address: address, bondedAt: time)
                        } catch {
                            logger.error(
                                "could not remember the board \(address) (the next start pairs again): \(error)")
                        }
                    }
                })
        }
    }

    /// USB presence is watched only when the board is reached over a link (not on loopback, where
    /// there is no cable) and libusb can watch here. The session hears that it is watched before the
    /// watcher starts, since the watcher reports the boards already plugged in while it starts, and hears
    /// otherwise if it then cannot watch. An arriving board also tells the Wake source that the cable is
    /// there (a bond waiting for it is tried).
    private static func startUSBWatcher(
        _ configuration: PhoneConfiguration, client: PhoneClient, wakeSource: any WakeSource
    )
        -> (USBHotplugWatcher?, USBMonitoring)
    {
        if isLoopback(configuration.board.url) {
            return (nil, .unmonitored(reason: "the board is on loopback"))
        }
        let watcher = USBHotplugWatcher(vendorID: configuration.usb.vendorID, productID: configuration.usb.productID)
        client.submit(.usbWatched(true))
        let monitoring = watcher.start { event in
            client.submit(.usb(event))
            if case .arrived = event { wakeSource.cableArrived() }
        }
        guard monitoring == .monitoring else {
            client.submit(.usbWatched(false))
            return (nil, monitoring)
        }
        return (watcher, monitoring)
    }

    /// `1d6b:0104`, as lsusb and udev write a USB id.
    package static func usbID(_ vendor: UInt16, _ product: UInt16) -> String {
        func hex(_ value: UInt16) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
        return "\(hex(vendor)):\(hex(product))"
    }

    static func isLoopback(_ url: BoardURL) -> Bool {
        switch url.host {
        case .localhost: true
        case let .address(address): address.isLoopback
        }
    }

    private static func handleSignal(_ number: Int32, wiring: Wiring, terminal: TerminalOutput?, logger: Logger) {
        switch number {
        case SignalNumber.windowChanged:
            // The terminal was resized: redraw the card at its new width, in order with the card's updates.
            if let terminal, let columns = OutputChannel.standardOutput.terminalColumns {
                wiring.runtime.enqueue { terminal.resize(columns: columns) }
            }
        case SignalNumber.user1, SignalNumber.user2:
            let state: AppState = number == SignalNumber.user1 ? .foreground : .background
            logger.info("\(SignalNumber.name(of: number)): app state \(state.rawValue)")
            wiring.client.submit(.appState(state))
        default:
            logger.notice("\(SignalNumber.name(of: number)): reporting the app inactive and stopping")
            stop(wiring, logger: logger)
            CurrentProcess.exit(0)
        }
    }

    /// Tells the board the app is gone (short timeouts: exiting must not hang on an unplugged board),
    /// then stops receiving.
    static func stop(_ wiring: Wiring, logger: Logger) {
        Systemd.notify("STOPPING=1")
        defer {
            wiring.keyReader?.restore()
            wiring.wakeSource.stop()
            wiring.watcher?.stop()
            wiring.bar.stop()
            // No new inputs now; let the executor finish what is queued, then write out what it
            // produced: the newest alert record, the last card, the last log lines.
            wiring.runtime.perform {}
            wiring.client.flushRecord()
            // The alerts that waited for that record, now durable, are shown before the output is flushed.
            wiring.runtime.perform {}
            wiring.output.flush()
            OutputChannel.standardError.flush()
        }
        let transport = HTTPBoardTransport(
            board: wiring.configuration.board,
            timeout: .init(connectMilliseconds: 500, totalMilliseconds: 1_000))
        // Stopped, the client offers no way back to the task.
        let inactive = BoardRequest.appState(.inactive, returnEntry: nil, phoneID: wiring.phoneID)
        switch transport.perform(inactive.stamped(at: wiring.runtime.wallNow())) {
        case let .answered(status, _, _, _) where (200..<300).contains(status):
            logger.info("reported app state inactive")
        case let .answered(status, _, _, _):
            logger.warning("app state inactive not accepted: HTTP \(status)")
        case let .failed(detail):
            logger.info("app state inactive not reported: board unreachable: \(detail)")
        }
    }
}
