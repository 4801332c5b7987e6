/// Why the board sent a Wake (byte 1 of the envelope).
///
/// The reason is a hint for logs and diagnostics only: every new Wake means "fetch", whatever
/// its reason. Bytes this version does not know decode as `.unrecognized(byte)` so that a
/// newer board never breaks an older receiver and the raw byte can still be logged.
package enum WakeReason: Sendable, CustomStringConvertible {
    case unknown
    case phoneBridge
    case manual
    case system
    case liveActivity
    case usbReenumeration
    /// A byte outside 0...5, kept as received. Build values with `init(byte:)`, which never
    /// produces `.unrecognized` for a known byte.
    case unrecognized(UInt8)

    /// Every reason this version knows, in byte order.
    package static let known: [WakeReason] = [
        .unknown, .phoneBridge, .manual, .system, .liveActivity, .usbReenumeration,
    ]

    package init(byte: UInt8) {
        switch byte {
        case 0: self = .unknown
        case 1: self = .phoneBridge
        case 2: self = .manual
        case 3: self = .system
        case 4: self = .liveActivity
        case 5: self = .usbReenumeration
        default: self = .unrecognized(byte)
        }
    }

    /// Parses the snake_case name used in JSON and configuration (`"live_activity"`).
    /// Also accepts `"unrecognized_N"` as written by `name`, so names round-trip.
    package init?(name: String) {
        if let reason = WakeReason.known.first(where: { $0.name == name }) {
            self = reason
            return
        }
        let prefix = "unrecognized_"
        guard name.hasPrefix(prefix), let byte = UInt8(name.dropFirst(prefix.count)) else { return nil }
        self.init(byte: byte)
    }

    /// The wire byte.
    package var byte: UInt8 {
        switch self {
        case .unknown: 0
        case .phoneBridge: 1
        case .manual: 2
        case .system: 3
        case .liveActivity: 4
        case .usbReenumeration: 5
        case .unrecognized(let byte): byte
        }
    }

    /// Whether this version of the protocol defines the reason byte.
    package var isRecognized: Bool { WakeReason(byte: byte).isKnownCase }

    private var isKnownCase: Bool {
        if case .unrecognized = self { return false }
        return true
    }

    /// The snake_case name for JSON output, e.g. `"live_activity"`; `"unrecognized_7"` for an
    /// unknown byte 7.
    package var name: String {
        switch self {
        case .unknown: "unknown"
        case .phoneBridge: "phone_bridge"
        case .manual: "manual"
        case .system: "system"
        case .liveActivity: "live_activity"
        case .usbReenumeration: "usb_reenumeration"
        case .unrecognized(let byte): "unrecognized_\(byte)"
        }
    }

    package var description: String { name }
}

/// Reasons compare by wire byte, so `.unrecognized(4)` (only constructible by hand) equals
/// `.liveActivity` and a decoded value always equals the one that was encoded.
extension WakeReason: Hashable {
    package static func == (lhs: WakeReason, rhs: WakeReason) -> Bool { lhs.byte == rhs.byte }

    package func hash(into hasher: inout Hasher) { hasher.combine(byte) }
}
