import FoundationEssentials
import LiveActivity
import Testing
import WireFormat

/// The board's strict `TaskSnapshot` and the tolerant `SnapshotView` (phone, aidenctl) share one set of
/// keys. These tests check that what the board writes, the readers read back field for field: the
/// switches over `SnapshotKey.allCases` make a new key a compile error here until it is compared.
@Suite struct BoardViewAgreementTests {
    /// Every field set, and to a value other than its default, so a dropped field cannot pass unseen.
    static let board = TaskSnapshot(
        requestID: "chat_7f3a", phoneID: "phone_1", status: .failed, phase: .verifying, taskTitle: "Open Settings",
        currentStep: "Checking the current screen", currentAction: "observe_screen", currentTarget: "Wi-Fi row",
        currentApp: "Settings", lastToolName: "screenshot", lastError: "Settings crashed\non launch",
        toolStatus: "Reading the screen", toolStartedAt: Date(timeIntervalSince1970: 1_781_247_601), locale: "de-CH",
        progress: 0.25, showsProgress: true, canStop: true, requiresApp: true,
        startedAt: Date(timeIntervalSince1970: 1_781_247_600), updatedAt: Date(timeIntervalSince1970: 1_781_247_602),
        endedAt: Date(timeIntervalSince1970: 1_781_247_660), dismissAfterSeconds: 30,
        dismissedAt: Date(timeIntervalSince1970: 1_781_247_700), revision: 42,
        answer: TaskAnswer(
            answer: .stop, answerID: "ans-5f0c", phoneID: "phone_1",
            answeredAt: Date(timeIntervalSince1970: 1_781_247_630)))

    static func boardBytes(_ snapshot: TaskSnapshot = board) throws -> Data {
        try LiveActivityJSON.makeEncoder().encode(snapshot)
    }

    @Test func theBoardWritesExactlyTheSharedKeys() throws {
        let object = try JSONDecoder().decode([String: JSONValue].self, from: Self.boardBytes())
        #expect(Set(object.keys) == Set(SnapshotKey.allCases.map(\.stringValue)))
    }

    @Test func everyFieldTheBoardWritesSurvivesTheTolerantView() throws {
        let board = Self.board
        let view = try JSONDecoder().decode(SnapshotView.self, from: Self.boardBytes())
        for key in SnapshotKey.allCases {
            let same: Bool =
                switch key {
                case .requestID: view.requestID == board.requestID
                case .phoneID: view.phoneID == board.phoneID
                case .status: view.status == .known(board.status)
                case .phase: view.phase == .known(board.phase)
                case .taskTitle: view.taskTitle == board.taskTitle
                case .currentStep: view.currentStep == board.currentStep
                case .currentAction: view.currentAction == board.currentAction
                case .currentTarget: view.currentTarget == board.currentTarget
                case .currentApp: view.currentApp == board.currentApp
                case .lastToolName: view.lastToolName == board.lastToolName
                case .lastError: view.lastError == board.lastError
                case .toolStatus: view.toolStatus == board.toolStatus
                case .toolStartedAt: view.toolStartedAt == board.toolStartedAt.map(Timestamp.format)
                case .locale: view.locale == board.locale
                case .progress: view.progress == board.progress
                case .showsProgress: view.showsProgress == board.showsProgress
                case .canStop: view.canStop == board.canStop
                case .requiresApp: view.requiresApp == board.requiresApp
                case .staleAfterSeconds: view.staleAfterSeconds == UInt64(board.staleAfterSeconds)
                case .abandonAfterSeconds: view.abandonAfterSeconds == UInt64(board.abandonAfterSeconds)
                case .staleSince: view.staleSince == board.staleSince.map(Timestamp.format)
                case .startedAt: view.startedAt == Timestamp.format(board.startedAt)
                case .updatedAt: view.updatedAt == Timestamp.format(board.updatedAt)
                case .endedAt: view.endedAt == board.endedAt.map(Timestamp.format)
                case .dismissAfterSeconds: view.dismissAfterSeconds == board.dismissAfterSeconds.map(UInt64.init)
                case .dismissedAt: view.dismissedAt == board.dismissedAt.map(Timestamp.format)
                case .revision: view.revision == board.revision
                case .answer:
                    view.answer
                        == AnswerView(
                            answer: board.answer.map { .known($0.answer) }, answerID: board.answer?.answerID,
                            phoneID: board.answer?.phoneID,
                            answeredAt: board.answer.map { Timestamp.format($0.answeredAt) })
                }
            #expect(same, "\(key.stringValue) differs between the board's snapshot and the view")
        }
        #expect(view.isAwaitingUser == board.isAwaitingUser)
    }

    @Test func theViewWritesBackWhatTheBoardReadsAsTheSameSnapshot() throws {
        let view = try JSONDecoder().decode(SnapshotView.self, from: Self.boardBytes())
        let again = try JSONDecoder().decode(TaskSnapshot.self, from: JSONEncoder().encode(view))
        #expect(again == Self.board)
    }

    @Test func aRunningTaskHasNoEndAndBothSidesSeeTheHandoff() throws {
        var board = Self.board
        board.status = .running
        board.endedAt = nil
        board.phase = .waitingUser
        board.currentAction = Handoff.requestUserInputAction
        let view = try JSONDecoder().decode(SnapshotView.self, from: Self.boardBytes(board))
        #expect(view.endedAt == nil)
        #expect(view.status == .known(.running))
        #expect(board.isAwaitingUser)
        #expect(view.isAwaitingUser)
    }

    @Test(arguments: TaskStatus.allCases)
    func everyStatusTheBoardWritesIsKnownToTheView(status: TaskStatus) throws {
        var board = Self.board
        board.status = status
        board.endedAt = status.isTerminal ? board.updatedAt : nil
        let view = try JSONDecoder().decode(SnapshotView.self, from: Self.boardBytes(board))
        #expect(view.status?.known == status)
    }

    @Test(arguments: TaskPhase.allCases)
    func everyPhaseTheBoardWritesIsKnownToTheView(phase: TaskPhase) throws {
        var board = Self.board
        board.phase = phase
        let view = try JSONDecoder().decode(SnapshotView.self, from: Self.boardBytes(board))
        #expect(view.phase?.known == phase)
    }
}
