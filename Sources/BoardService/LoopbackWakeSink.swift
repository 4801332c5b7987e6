import BoardAPI
import NetworkAddress
import Platform
import WakeProtocol
import WireFormat

/// The development and test transport: each Wake is one 12-byte UDP datagram to
/// `[wake] loopback_target` (docs/protocol.md §2.8). Same bytes as the BLE characteristic value.
package struct LoopbackWakeSink: WakeSink {
    package let target: SocketEndpoint
    private let socket: UDPDatagramSocket
    private let adapter: String

    package init(target: SocketEndpoint, adapter: String) throws(SocketError) {
        self.target = target
        self.socket = try UDPDatagramSocket(sendingTo: target)
        self.adapter = adapter
    }

    package var transportName: String { "loopback" }

    package func send(_ envelope: WakeEnvelope) -> Result<Void, WakeSinkError> {
        socket.send(envelope.bytes, to: target).mapError { WakeSinkError($0.description) }
    }

    package func bluetoothFacts() -> BluetoothFacts {
        // No radio in this mode: nothing registered, nothing advertised, and we say so.
        BluetoothFacts(adapter: adapter)
    }

    /// No radio, no pairing: the router already answers 409 for this transport; this is the same word.
    package func openPairingWindow(for duration: Duration, forgetting phone: String?) -> PairingOutcome {
        .failed("the loopback Wake transport has no Bluetooth pairing")
    }
}
