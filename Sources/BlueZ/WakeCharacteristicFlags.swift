/// The Wake characteristic's BlueZ `Flags`, checked: the phone subscribes, so `notify` (or `indicate`) must be
/// there; and no write flag, since the characteristic answers every write with `NotPermitted`.
package enum WakeCharacteristicFlags {
    package static func validate(_ flags: [String]) throws(WakeCharacteristicFlagsError) -> [String] {
        guard !flags.isEmpty else { throw .empty }
        let notifying = [
            "notify", "indicate", "encrypt-notify", "encrypt-indicate", "encrypt-authenticated-notify",
            "encrypt-authenticated-indicate", "secure-notify", "secure-indicate",
        ]
        guard flags.contains(where: notifying.contains) else { throw .noNotify(flags) }
        if let write = flags.first(where: { $0.contains("write") }) { throw .writable(write) }
        return flags
    }
}

package enum WakeCharacteristicFlagsError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case noNotify([String])
    case writable(String)

    package var description: String {
        switch self {
        case .empty: "characteristic_flags is empty: the Wake characteristic needs at least \"notify\""
        case .noNotify(let flags):
            "characteristic_flags \(flags) has no notify flag: the phone could never subscribe"
        case .writable(let flag):
            "characteristic_flags has \"\(flag)\": the Wake characteristic is read and notify only"
        }
    }
}
