/// How Wake envelopes travel: BLE through BlueZ, or UDP on loopback for development and tests.
package enum WakeTransport: String, Equatable, Sendable, CaseIterable {
    case bluez
    case loopback
}
