import BlueZ
import DBusModel
import Platform
import Retry
import Synchronization
import TestSupport
import Testing

/// The one reconnect loop of the board's sink and the phone's source, on fake connections and manual time.
@Suite("BusSupervisor")
struct BusSupervisorTests {
    /// Scripted connection attempts and a log of what the supervisor did with them.
    final class Script: Sendable {
        let runtime = ManualRuntime()
        let supervisor: BusSupervisor<String>
        /// The outcome of each next `connect`, in order; a connection when it runs out.
        let attempts = Mutex<[DBusError?]>([])
        let openFailures = Mutex<[DBusError?]>([])
        let connections = Mutex<[FakeMessageBus]>([])
        let log = Mutex<[String]>([])

        init() {
            supervisor = BusSupervisor(
                backoff: Backoff(base: .seconds(1), cap: .seconds(4)), runtime: runtime,
                logger: Logger.capturing().0)
        }

        func start() {
            supervisor.start(
                BusSupervisor.Hooks(
                    connect: { [self] () async throws(DBusError) -> any BusConnection in
                        if let error = attempts.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw error }
                        let bus = connections.withLock { connections in
                            let bus = FakeMessageBus(uniqueName: ":1.\(connections.count + 1)")
                            connections.append(bus)
                            return bus
                        }
                        return bus
                    },
                    open: { [self] connection async throws(DBusError) -> String in
                        if let error = openFailures.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw error }
                        record("open on \(connection.uniqueName)")
                        return "session on \(connection.uniqueName)"
                    },
                    close: { [self] session in record("close \(session)") },
                    changed: { [self] event in
                        switch event {
                        case .connected(let session, let name): record("connected \(name): \(session)")
                        case .failed(let error, let delay): record("failed \(error.name), retry in \(delay)")
                        case .lost: record("lost")
                        }
                    }))
        }

        func record(_ line: String) { log.withLock { $0.append(line) } }

        func takeLog() -> [String] {
            log.withLock { log in
                defer { log = [] }
                return log
            }
        }

        var connection: FakeMessageBus? { connections.withLock { $0.last } }
    }

    @Test func connectsOpensAndReconnectsAfterALoss() async throws {
        let script = Script()
        script.start()
        await script.runtime.drain()
        #expect(script.takeLog() == ["open on :1.1", "connected :1.1: session on :1.1"])
        #expect(script.supervisor.session == "session on :1.1")

        script.connection?.disconnect()
        #expect(script.supervisor.session == nil)
        await script.runtime.drain()
        #expect(script.takeLog() == ["lost", "close session on :1.1"])
        // Not at once: a bus that accepts and then drops us must not be reconnected in a tight loop.
        #expect(script.runtime.pendingTimers == [.seconds(1)])
        await script.runtime.advance(to: .seconds(1))
        #expect(script.takeLog() == ["open on :1.2", "connected :1.2: session on :1.2"])
        #expect(script.supervisor.session == "session on :1.2")
        #expect(script.runtime.pendingTimers.isEmpty)
    }

    @Test func retriesWithBackoffOnTheRuntimeClock() async throws {
        let script = Script()
        let noServer = DBusError(name: DBusError.Names.noServer, message: "no bus")
        script.attempts.withLock { $0 = [noServer, noServer, noServer] }
        script.start()
        await script.runtime.drain()
        #expect(script.takeLog() == ["failed \(DBusError.Names.noServer), retry in 1.0 seconds"])
        #expect(script.runtime.pendingTimers == [.seconds(1)])

        await script.runtime.advance(to: .seconds(1))
        #expect(script.runtime.pendingTimers == [.seconds(3)])
        await script.runtime.advance(to: .seconds(3))
        #expect(script.runtime.pendingTimers == [.seconds(7)])
        #expect(
            script.takeLog() == [
                "failed \(DBusError.Names.noServer), retry in 2.0 seconds",
                "failed \(DBusError.Names.noServer), retry in 4.0 seconds",
            ])
        await script.runtime.advance(to: .seconds(7))
        #expect(script.takeLog() == ["open on :1.1", "connected :1.1: session on :1.1"])
        #expect(script.runtime.pendingTimers.isEmpty)

        // A success resets the count: the next failure waits the base delay again.
        script.attempts.withLock { $0 = [noServer] }
        script.connection?.disconnect()
        await script.runtime.drain()
        #expect(script.runtime.pendingTimers == [.seconds(8)])
    }

    @Test func aSessionThatFailsToOpenClosesItsConnection() async throws {
        let script = Script()
        script.openFailures.withLock { $0 = [.failed("export refused")] }
        script.start()
        await script.runtime.drain()
        #expect(script.connection?.isConnected == false)
        #expect(script.supervisor.session == nil)
        #expect(script.takeLog() == ["failed \(DBusError.Names.failed), retry in 1.0 seconds"])
        await script.runtime.advance(to: .seconds(1))
        #expect(script.supervisor.session == "session on :1.2")
    }

    @Test func stopClosesTheSessionThenTheConnectionAndStopsRetrying() async throws {
        let script = Script()
        script.start()
        await script.runtime.drain()
        _ = script.takeLog()
        let connection = try #require(script.connection)
        await script.supervisor.stop()
        #expect(script.takeLog() == ["close session on :1.1"])
        #expect(!connection.isConnected)
        await script.runtime.drain()
        #expect(script.takeLog().isEmpty && script.supervisor.session == nil)

        let failing = Script()
        failing.attempts.withLock { $0 = [.failed("no bus")] }
        failing.start()
        await failing.runtime.drain()
        #expect(failing.runtime.pendingTimers == [.seconds(1)])
        await failing.supervisor.stop()
        #expect(failing.runtime.pendingTimers.isEmpty)
    }
}
