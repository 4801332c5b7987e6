import FoundationEssentials
import Testing
import WireFormat

/// Open forms of the closed vocabularies: every known name reads as known, any other is kept.
@Suite struct OpenEnumTests {
    private func roundTrip<Known>(_ value: OpenEnum<Known>) throws -> OpenEnum<Known> {
        try JSONDecoder().decode(OpenEnum<Known>.self, from: JSONEncoder().encode(value))
    }

    @Test func everyKnownNameReadsAsKnown() throws {
        for status in TaskStatus.allCases { #expect(OpenEnum<TaskStatus>(rawValue: status.rawValue) == .known(status)) }
        for phase in TaskPhase.allCases { #expect(OpenEnum<TaskPhase>(rawValue: phase.rawValue) == .known(phase)) }
        for transition in Transition.allCases {
            #expect(try roundTrip(OpenEnum(transition)) == .known(transition))
        }
        for state in AppState.allCases { #expect(try roundTrip(OpenEnum(state)) == .known(state)) }
    }

    @Test func unknownNamesArePreservedNotRejected() throws {
        let phase = try JSONDecoder().decode(OpenEnum<TaskPhase>.self, from: Data(#""dreaming""#.utf8))
        #expect(phase == .unknown("dreaming"))
        #expect(String(decoding: try JSONEncoder().encode(phase), as: UTF8.self) == #""dreaming""#)
        #expect(try roundTrip(OpenEnum<Transition>.unknown("teleported")) == .unknown("teleported"))
        #expect(try roundTrip(OpenEnum<AppState>.unknown("picture_in_picture")).rawValue == "picture_in_picture")
    }

    @Test func anEmptyNameIsKeptToo() {
        #expect(OpenEnum<TaskStatus>(rawValue: "") == .unknown(""))
    }

    @Test func knownAndWireNamesMatchTheContract() {
        #expect(TaskStatus.allCases.map(\.rawValue) == ["running", "needs_app", "completed", "failed", "canceled"])
        #expect(
            TaskPhase.allCases.map(\.rawValue) == [
                "planning", "observing", "acting", "phone_bridge", "waiting_app", "waiting_user", "verifying",
                "answering",
            ])
        #expect(
            Transition.allCases.map(\.rawValue) == [
                "started", "handoff", "foreground_recovery", "completed", "failed", "canceled", "stop_requested",
                "answered", "dismissed",
            ])
        #expect(Answer.allCases.map(\.rawValue) == ["stop", "done", "refuse", "dismiss"])
        #expect(AppState.allCases.map(\.rawValue) == ["foreground", "background", "inactive"])
    }

    @Test func terminalStatusesAreExactlyThoseWithAnEndingTransition() {
        for status in TaskStatus.allCases {
            #expect((Transition(ending: status) != nil) == status.isTerminal)
        }
        #expect(Set(TaskStatus.active + TaskStatus.terminal) == Set(TaskStatus.allCases))
    }
}
