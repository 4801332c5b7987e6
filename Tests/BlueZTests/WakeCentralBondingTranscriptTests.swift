import DBusModel
import Synchronization
import TestSupport
import Testing

@testable import BlueZ

/// Bonding over the cable as the bus sees it: the exact calls, the agent's answers, what is remembered.
@Suite("WakeCentral bonding transcripts")
struct WakeCentralBondingTranscriptTests {
    typealias T = WakeCentralTranscriptTests
    static let agent = "/org/aidenbridge/phone/agent"
    static let registerAgent =
        "call org.bluez /org/bluez org.bluez.AgentManager1.RegisterAgent(objectpath '\(agent)', 'NoInputNoOutput')"
    static let pair = "call org.bluez \(T.device) org.bluez.Device1.Pair()"
    static let trust =
        "call org.bluez \(T.device) org.freedesktop.DBus.Properties.Set('org.bluez.Device1', 'Trusted', <true>)"

    /// The cable as a script: each window request answers with the next outcome.
    final class ScriptedCable: PairingCable {
        let outcomes: Mutex<[Result<String, PairingCableError>]>
        let asked = Mutex(0)

        init(_ outcomes: [Result<String, PairingCableError>]) {
            self.outcomes = Mutex(outcomes)
        }

        func openPairingWindow(hostAddress: String?) async throws(PairingCableError) -> String {
            asked.withLock { $0 += 1 }
            let next = outcomes.withLock {
                $0.isEmpty ? .failure(PairingCableError("no more answers")) : $0.removeFirst()
            }
            return try next.get()
        }

        /// The board's word on a bond: it says it no longer holds this host's (as a reset board does).
        func confirmBondLost(hostAddress: String?) async throws(PairingCableError) -> Bool {
            asked.withLock { $0 += 1 }
            return true
        }
    }

    @Test func anUnbondedBoardIsPairedTrustedRememberedAndSubscribed() async throws {
        let cable = ScriptedCable([.success(T.boardAddress)])
        let fixture = T.Fixture(cable: cable)
        let remembered = Mutex<[String]>([])
        fixture.bluez.bus.respond(to: "Pair") { _ in [] }
        try await fixture.central.start(
            deliver: { _ in }, state: { [fixture] state in fixture.states.withLock { $0.append(state) } },
            bonded: { address in remembered.withLock { $0.append(address) } })
        await fixture.runtime.drain()
        #expect(fixture.bluez.bus.transcript.contains { $0.description == "export \(Self.agent) [org.bluez.Agent1]" })
        _ = fixture.takeCalls()
        _ = fixture.takeStates()

        await fixture.advertise(paired: false)
        #expect(
            fixture.takeCalls() == [
                "call org.bluez /org/bluez/hci0 org.bluez.Adapter1.StopDiscovery()", Self.registerAgent, Self.pair,
                Self.trust, "call org.bluez \(T.device) org.bluez.Device1.Connect()",
            ])
        #expect(cable.asked.withLock { $0 } == 1)
        #expect(remembered.withLock { $0 } == [T.boardAddress])
        #expect(
            fixture.takeStates() == [.pairing(address: T.boardAddress), .connecting(address: T.boardAddress)])

        await fixture.resolveServices()
        #expect(fixture.takeCalls() == T.subscribe)
        #expect(fixture.takeStates().last == .subscribed(address: T.boardAddress))
        await fixture.central.stop()
        #expect(fixture.bluez.bus.transcript.contains { $0.description == "unexport \(Self.agent)" })
    }

    /// The agent answers bluetoothd about the pairing it started, nobody else, nothing else. bluetoothd asks
    /// while `Pair` is in flight: the fake does the same, then answers `Pair`.
    @Test func theAgentConfirmsOnlyBluetoothdAboutTheBoardBeingPaired() async throws {
        let cable = ScriptedCable([.success(T.boardAddress)])
        let fixture = T.Fixture(cable: cable)
        let answers = Mutex<[String]>([])
        let bluez = fixture.bluez
        let other: DBusObjectPath = "/org/bluez/hci0/dev_11_22_33_44_55_66"
        fixture.bluez.bus.respondLater(to: "Pair") { _ in
            let questions: [(String, [DBusValue], String)] = [
                ("RequestConfirmation", [.objectPath(T.device), .uint32(123_456)], FakeBlueZ.owner),
                ("RequestConfirmation", [.objectPath(T.device), .uint32(123_456)], ":1.99"),
                ("RequestAuthorization", [.objectPath(other)], FakeBlueZ.owner),
                (
                    "AuthorizeService", [.objectPath(T.device), .string("0000110b-0000-1000-8000-00805f9b34fb")],
                    FakeBlueZ.owner
                ),
            ]
            for (member, body, sender) in questions {
                let reply = await bluez.callExported(Self.agentPath, BlueZNames.agent, member, body, sender: sender)
                answers.withLock { $0.append(reply.errorName ?? "ok") }
            }
            return []
        }
        try await fixture.start()
        // Before any pairing, nothing is confirmed.
        let early = await bluez.callExported(
            Self.agentPath, BlueZNames.agent, "RequestAuthorization", [.objectPath(T.device)])
        #expect(early.errorName == "org.bluez.Error.Rejected")
        await fixture.advertise(paired: false)
        #expect(
            answers.withLock { $0 } == [
                "ok", "org.bluez.Error.Rejected", "org.bluez.Error.Rejected", "org.bluez.Error.Rejected",
            ])
        #expect(fixture.takeCalls().contains(Self.trust), "the pairing went on after the agent's answers")
    }

    /// The board refuses over the cable: no Pair call, the reason on the state, a retry when plugged in.
    @Test func aRefusedWindowPairsNothingAndSaysWhy() async throws {
        let refusal = PairingCableError("the board refused (HTTP 403): pairing needs the USB link")
        let cable = ScriptedCable([.failure(refusal), .success(T.boardAddress)])
        let fixture = T.Fixture(cable: cable)
        fixture.bluez.bus.respond(to: "Pair") { _ in [] }
        try await fixture.start()
        _ = fixture.takeCalls()
        _ = fixture.takeStates()
        await fixture.advertise(paired: false)
        #expect(fixture.takeCalls() == ["call org.bluez /org/bluez/hci0 org.bluez.Adapter1.StopDiscovery()"])
        let reason = "the board's pairing window could not be opened over USB: \(refusal)"
        #expect(
            fixture.takeStates() == [
                .pairing(address: T.boardAddress),
                .pairingFailed(address: T.boardAddress, reason: reason, retryIn: .seconds(30)),
            ])
        fixture.central.cableArrived(boardAddress: T.boardAddress)
        await fixture.runtime.drain()
        #expect(fixture.takeCalls() == T.search)
        fixture.bluez.propertiesChanged(T.device, interface: BlueZNames.device, ["RSSI": .int16(-40)])
        await fixture.runtime.drain()
        #expect(fixture.takeCalls().contains(Self.pair))
        #expect(cable.asked.withLock { $0 } == 2)
    }

    static let agentPath: DBusObjectPath = "/org/aidenbridge/phone/agent"
}
