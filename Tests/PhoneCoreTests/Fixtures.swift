import WireFormat

@testable import PhoneCore

/// Snapshots and links the card, renderer and encoder tests share.
enum Fixtures {
    static let usbUp = LinkState(usb: .up, wake: .connected, connectionID: "usb-7")
    static let usbDown = LinkState(usb: .down, wake: .connected)
    static let loopback = LinkState(usb: .unmonitored, wake: .connected)

    static let running = SnapshotView(
        requestID: "chat_1", phoneID: "", status: .known(.running), phase: .known(.observing),
        taskTitle: "Open Settings",
        currentStep: "Checking the current screen", currentAction: "observe_screen", currentTarget: "",
        currentApp: "", lastToolName: "screenshot", lastError: "", progress: 0.21, showsProgress: true,
        canStop: true, requiresApp: false, startedAt: "2026-06-12T07:00:00Z", updatedAt: "2026-06-12T07:00:02Z",
        endedAt: nil, revision: 42)

    static var needsApp: SnapshotView {
        var snapshot = running
        snapshot.status = .known(.needsApp)
        snapshot.phase = .known(.waitingApp)
        snapshot.currentStep = "Waiting for the Aiden app"
        snapshot.showsProgress = false
        return snapshot
    }

    static var handoff: SnapshotView {
        var snapshot = running
        snapshot.phase = .known(.waitingUser)
        snapshot.currentStep = "Enter the Wi-Fi password"
        snapshot.currentAction = "request_user_input"
        snapshot.currentTarget = "Password field"
        snapshot.currentApp = "Settings"
        snapshot.progress = 0.5
        return snapshot
    }

    static func ended(_ status: TaskStatus, error: String = "") -> SnapshotView {
        var snapshot = running
        snapshot.status = .known(status)
        snapshot.phase = .known(.answering)
        snapshot.currentStep = "Opened Settings"
        snapshot.lastError = error
        snapshot.progress = 1
        snapshot.canStop = false
        snapshot.endedAt = "2026-06-12T07:01:00Z"
        return snapshot
    }
}
