import Testing
import WireFormat

@testable import PhoneCore

/// `Alert.describing(_:)` and `BoardText`: which of the task's words an alert takes, and that
/// whatever the board sends comes out as one clean, bounded line.
@Suite struct AlertDescriptionTests {
    private let handoff = Alert(transition: .handoff, requestID: "chat_1", epoch: 1234, eventID: 7)

    @Test func theWordsTakenDependOnTheTransitionAndWhereTheTaskIsNow() {
        // The fixtures' active tasks can be stopped (`can_stop`): their notification offers Stop.
        func stoppable(_ alert: Alert) -> Alert {
            var alert = alert
            alert.canStop = true
            return alert
        }
        let table: [(AlertTransition, SnapshotView, Alert)] = [
            (
                .handoff, Fixtures.handoff,
                stoppable(
                    Alert(
                        transition: .handoff, requestID: "chat_1", title: "Open Settings",
                        step: "Enter the Wi-Fi password", action: "request_user_input"))
            ),
            // Over already: the step now is not what the handoff asked.
            (.handoff, Fixtures.running, Alert(transition: .handoff, requestID: "chat_1", title: "Open Settings")),
            (
                .foregroundRecovery, Fixtures.needsApp,
                stoppable(Alert(transition: .foregroundRecovery, requestID: "chat_1", title: "Open Settings"))
            ),
            (
                .completed, Fixtures.ended(.completed),
                Alert(transition: .completed, requestID: "chat_1", title: "Open Settings")
            ),
            (
                .failed, Fixtures.ended(.failed, error: "the network refused the password"),
                Alert(
                    transition: .failed, requestID: "chat_1", title: "Open Settings",
                    error: "the network refused the password")
            ),
            // A failed task with an empty last_error: no error to tell.
            (.failed, Fixtures.ended(.failed), Alert(transition: .failed, requestID: "chat_1", title: "Open Settings")),
        ]
        for (transition, task, expected) in table {
            #expect(Alert(transition: transition, requestID: "chat_1").describing(task) == expected, "\(transition)")
        }
    }

    @Test func anotherTasksSnapshotOrNoneChangesNothing() {
        var other = Fixtures.handoff
        other.requestID = "chat_2"
        #expect(handoff.describing(other) == handoff)
        #expect(handoff.describing(nil) == handoff)
        #expect(Alert(transition: .connected, connectionID: "usb-7").describing(Fixtures.running).title == nil)
    }

    @Test func hostileTextIsCleanedAndBounded() throws {
        var task = Fixtures.handoff
        task.taskTitle =
            "\u{1B}[2J\u{1B}]0;owned\u{07}Open\u{202E}txet\u{2066} Settings\n\n\u{0085}\u{9B}31m"
            + String(repeating: "x", count: 100_000)
        task.currentStep = "Enter\u{200B} the\r\npassword\u{2028}now"
        let alert = handoff.describing(task)
        let title = try #require(alert.title)
        #expect(title.hasPrefix("[2J ]0;owned Opentxet Settings 31m"))
        #expect(title.unicodeScalars.count == Alert.titleLimit)
        #expect(title.hasSuffix("..."))
        #expect(alert.step == "Enter the password now")
        #expect(alert.action == "request_user_input")

        task.currentStep = String(repeating: "step ", count: 1_000)
        #expect(handoff.describing(task).step?.unicodeScalars.count == Alert.stepLimit)
        var failure = Fixtures.ended(.failed, error: "\u{1B}[31m" + String(repeating: "e", count: 5_000))
        failure.taskTitle = "\u{202E}"
        let failed = Alert(transition: .failed, requestID: "chat_1").describing(failure)
        #expect(failed.title == nil, "nothing readable left")
        #expect(failed.error?.hasPrefix("[31meee") == true)
        #expect(failed.error?.unicodeScalars.count == Alert.errorLimit)
        for text in [alert.title, alert.step, alert.action, failed.error].compactMap({ $0 }) {
            #expect(
                !text.unicodeScalars.contains {
                    [.control, .format, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory)
                })
        }
    }

    @Test func boardTextLines() {
        #expect(BoardText.line(nil, limit: 10) == nil)
        #expect(BoardText.line("", limit: 10) == nil)
        #expect(BoardText.line(" \n\t\u{200F} ", limit: 10) == nil, "nothing readable")
        #expect(BoardText.line("  two   words ", limit: 10) == "two words")
        #expect(BoardText.line("0123456789", limit: 10) == "0123456789", "exactly the limit is kept")
        #expect(BoardText.line("0123456789A", limit: 10) == "0123456...")
        #expect(BoardText.line("日本語のタイトル", limit: 6) == "日本語...")
    }

    /// The cut falls between characters: a letter keeps its accent and a flag its two halves (it used to cut
    /// between scalars, leaving a bare "e" or half a flag before the `...`).
    @Test func boardTextLinesAreCutBetweenCharacters() {
        let accented = BoardText.line("012345e\u{301}789", limit: 10)
        #expect(accented?.unicodeScalars.elementsEqual("012345...".unicodeScalars) == true)
        #expect(BoardText.line("abcdef🇩🇪🇫🇷x", limit: 10) == "abcdef...")
        #expect(BoardText.line("abcd🇩🇪🇫🇷🇯🇵x", limit: 10) == "abcd🇩🇪...")
    }
}
