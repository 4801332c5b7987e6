/// The state directory could not be used.
package struct PhoneStateError: Error, Sendable, Equatable, CustomStringConvertible {
    package var path: String
    package var message: String

    package var description: String { "\(path): \(message)" }
}
