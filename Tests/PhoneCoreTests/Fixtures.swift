@testable import PhoneCore

/// Snapshots and links the card, renderer and encoder tests share.
enum Fixtures {
    static let usbUp = LinkState(usb: .up, wake: .connected, connectionID: "usb-7")
    static let usbDown = LinkState(usb: .down, wake: .connected)
    static let loopback = LinkState(usb: .unmonitored, wake: .connected)

    static let running = BoardSnapshot(
        requestID: "chat_1", phoneID: "", status: .running, phase: .observing, taskTitle: "Open Settings",
        currentStep: "Checking the current screen", currentAction: "observe_screen", currentTarget: "",
        currentApp: "", lastToolName: "screenshot", lastError: "", progress: 0.21, showsProgress: true,
        canStop: true, requiresApp: false, startedAt: "2026-06-12T07:00:00Z", updatedAt: "2026-06-12T07:00:02Z",
        endedAt: nil, revision: 42)

    static var needsApp: BoardSnapshot {
        var snapshot = running
        snapshot.status = .needsApp
        snapshot.phase = .waitingApp
        snapshot.currentStep = "Waiting for the Aiden app"
        snapshot.showsProgress = false
        return snapshot
    }

    static var handoff: BoardSnapshot {
        var snapshot = running
        snapshot.phase = .waitingUser
        snapshot.currentStep = "Enter the Wi-Fi password"
        snapshot.currentAction = "request_user_input"
        snapshot.currentTarget = "Password field"
        snapshot.currentApp = "Settings"
        snapshot.progress = 0.5
        return snapshot
    }

    static func ended(_ status: BoardTaskStatus, error: String = "") -> BoardSnapshot {
        var snapshot = running
        snapshot.status = status
        snapshot.phase = .answering
        snapshot.currentStep = "Opened Settings"
        snapshot.lastError = error
        snapshot.progress = 1
        snapshot.canStop = false
        snapshot.endedAt = "2026-06-12T07:01:00Z"
        return snapshot
    }
}
