import DBusModel

/// A `NoInputNoOutput` pairing agent (`org.bluez.Agent1`) as an exported object: no PIN code or passkey is
/// ever asked for or shown, and each question bluetoothd may ask that could let a pairing through goes to
/// `decide`, which answers by returning (yes) or throwing (no, usually `rejected`). Both ends of the Wake link
/// export one: the board's accepts only inside its pairing window, the phone's only for the board it is
/// pairing over the cable.
package enum PairingAgent {
    /// What bluetoothd asks an agent to allow.
    package enum Question: Sendable, Equatable {
        /// `RequestConfirmation(device, passkey)`: just-works or numeric comparison.
        case confirmation
        /// `RequestAuthorization(device)`: an incoming pairing without a passkey.
        case authorization
        /// `AuthorizeService(device, uuid)`: a profile connection.
        case service(uuid: String)
    }

    package typealias Decide = @Sendable (_ question: Question, _ call: DBusMessage) throws(DBusError) -> Void

    /// `role` names the side for the refusals of what a NoInputNoOutput agent never does ("this board").
    package static func object(role: String, decide: @escaping Decide) -> DBusExportedObject {
        DBusExportedObject(interfaces: [
            DBusInterface(
                BlueZNames.agent,
                methods: [
                    DBusMethod("Release") { _ in [] },
                    DBusMethod("Cancel") { _ in [] },
                    DBusMethod("RequestPinCode", inputs: "o", outputs: "s") { _ throws(DBusError) in
                        throw rejected("\(role) has no input: it never asks for a PIN code")
                    },
                    DBusMethod("DisplayPinCode", inputs: "os") { _ throws(DBusError) in
                        throw rejected("\(role) has no display")
                    },
                    DBusMethod("RequestPasskey", inputs: "o", outputs: "u") { _ throws(DBusError) in
                        throw rejected("\(role) has no input: it never asks for a passkey")
                    },
                    DBusMethod("DisplayPasskey", inputs: "ouq") { _ throws(DBusError) in
                        throw rejected("\(role) has no display")
                    },
                    DBusMethod("RequestConfirmation", inputs: "ou") { call throws(DBusError) in
                        try decide(.confirmation, call)
                        return []
                    },
                    DBusMethod("RequestAuthorization", inputs: "o") { call throws(DBusError) in
                        try decide(.authorization, call)
                        return []
                    },
                    DBusMethod("AuthorizeService", inputs: "os") { call throws(DBusError) in
                        try decide(.service(uuid: call.body[1].stringValue ?? ""), call)
                        return []
                    },
                ])
        ])
    }

    package static func rejected(_ message: String) -> DBusError {
        DBusError(name: "org.bluez.Error.Rejected", message: message)
    }
}
