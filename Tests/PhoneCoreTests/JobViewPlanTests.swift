import Testing
import WireFormat

@testable import PhoneCore

/// KDE's job views (`JobViewPlan`) as timelines: what each input gives, from the cards, the server's answers
/// and its signals; never a sleep.
@Suite struct JobViewPlanTests {
    typealias Call = JobViewPlan.Call
    typealias Effect = JobViewPlan.Effect

    static func card(_ snapshot: SnapshotView, id: String = "chat_1", revision: UInt64 = 42) -> Card {
        var snapshot = snapshot
        snapshot.requestID = id
        snapshot.revision = revision
        return Card(state: CardState(snapshot: snapshot), snapshot: snapshot, link: Fixtures.usbUp)
    }

    static func running(step: String, progress: Double, revision: UInt64 = 42, canStop: Bool = true) -> Card {
        var snapshot = Fixtures.running
        snapshot.currentStep = step
        snapshot.progress = progress
        snapshot.canStop = canStop
        return card(snapshot, revision: revision)
    }

    enum Input: Sendable {
        case show([Card])
        case server(Bool)
        case opened(UInt64, String)
        case refused(UInt64)
        case dropped(String)
        case cancel(String)
    }

    struct Step: Sendable {
        var input: Input
        var effects: [Effect]
        init(_ input: Input, _ effects: [Effect] = []) {
            self.input = input
            self.effects = effects
        }
    }

    struct Timeline: Sendable, CustomTestStringConvertible {
        var name: String
        var steps: [Step]
        var testDescription: String { name }
    }

    static let firstView: [Call] = [
        .setDescriptionField(0, name: "Task", value: "Open Settings"), .setInfoMessage("Checking the current screen"),
        .setPercent(21),
    ]
    static let start: [Step] = [
        Step(.server(true)),
        Step(.show([card(Fixtures.running)]), [.request(ticket: 1, requestID: "chat_1", capabilities: .killable)]),
        Step(.opened(1, "/v/1"), [.send(path: "/v/1", firstView)]),
    ]

    static let timelines: [Timeline] = [
        Timeline(
            name: "a task's life: its step and progress, a handoff, the end",
            steps: start + [
                Step(.show([card(Fixtures.running)])),
                Step(
                    .show([running(step: "Typing", progress: 0.5, revision: 43)]),
                    [.send(path: "/v/1", [.setInfoMessage("Typing"), .setPercent(50)])]),
                Step(
                    .show([card(Fixtures.handoff, revision: 44)]),
                    [
                        .send(
                            path: "/v/1",
                            [
                                .setDescriptionField(
                                    1, name: "Waiting for", value: "You, on the phone (Password field)"),
                                .setInfoMessage("Enter the Wi-Fi password"),
                            ])
                    ]),
                Step(
                    .show([card(Fixtures.ended(.completed), revision: 45)]),
                    [
                        .send(
                            path: "/v/1", [.clearDescriptionField(1), .setInfoMessage("Completed"), .terminate("")])
                    ]),
                Step(.show([card(Fixtures.ended(.completed), revision: 45)])),
                // A Cancel from the ended view is nothing.
                Step(.cancel("/v/1")),
            ]),
        Timeline(
            name: "a failure says its error",
            steps: start + [
                Step(
                    .show([card(Fixtures.ended(.failed, error: "No network"))]),
                    [.send(path: "/v/1", [.setInfoMessage("Failed"), .setError(100), .terminate("No network")])])
            ]),
        Timeline(
            name: "a canceled task ends as killed, with its words",
            steps: start + [
                Step(
                    .show([card(Fixtures.ended(.canceled))]),
                    [.send(path: "/v/1", [.setInfoMessage("Canceled"), .setError(1), .terminate("Canceled")])])
            ]),
        Timeline(
            name: "Cancel is stop at the revision the view last showed, once, and a dropped canceled view stays gone",
            steps: start + [
                Step(
                    .show([running(step: "Typing", progress: 0.3, revision: 43)]),
                    [.send(path: "/v/1", [.setInfoMessage("Typing"), .setPercent(30)])]),
                Step(.cancel("/v/9")),
                Step(.cancel("/v/1"), [.answer(.stop, requestID: "chat_1", revision: 43)]),
                Step(.cancel("/v/1")),
                Step(.dropped("/v/1")),
                Step(.show([running(step: "Stopping", progress: 0.3, revision: 44)])),
            ]),
        Timeline(
            name: "a task that cannot be stopped has no Cancel; when it can, the view is replaced",
            steps: [
                Step(.server(true)),
                Step(
                    .show([running(step: "Checking the current screen", progress: 0.21, canStop: false)]),
                    [.request(ticket: 1, requestID: "chat_1", capabilities: [])]),
                Step(.opened(1, "/v/1"), [.send(path: "/v/1", firstView)]),
                Step(.cancel("/v/1")),
                Step(
                    .show([card(Fixtures.running, revision: 43)]),
                    [
                        .send(path: "/v/1", [.setError(1), .terminate("")]),
                        .request(ticket: 2, requestID: "chat_1", capabilities: .killable),
                    ]),
                Step(.opened(2, "/v/2"), [.send(path: "/v/2", firstView)]),
                Step(.cancel("/v/2"), [.answer(.stop, requestID: "chat_1", revision: 43)]),
            ]),
        Timeline(
            name: "a stop already recorded is not sent again from Cancel",
            steps: [
                Step(.server(true)),
                Step(
                    .show([recordedStop]), [.request(ticket: 1, requestID: "chat_1", capabilities: .killable)]),
                Step(.opened(1, "/v/1"), [.send(path: "/v/1", firstView)]),
                Step(.cancel("/v/1")),
            ]),
        Timeline(
            name: "a restarted server gets every view again; an answer from the old one is dropped",
            steps: [
                Step(.server(true)),
                Step(
                    .show([card(Fixtures.running), card(Fixtures.handoff, id: "b")]),
                    [
                        .request(ticket: 1, requestID: "chat_1", capabilities: .killable),
                        .request(ticket: 2, requestID: "b", capabilities: .killable),
                    ]),
                Step(.opened(1, "/v/1"), [.send(path: "/v/1", firstView)]),
                Step(
                    .server(true),
                    [
                        .request(ticket: 3, requestID: "chat_1", capabilities: .killable),
                        .request(ticket: 4, requestID: "b", capabilities: .killable),
                    ]),
                Step(.opened(2, "/v/2")),
                Step(.cancel("/v/1")),
                Step(.opened(3, "/v/1"), [.send(path: "/v/1", firstView)]),
            ]),
        Timeline(
            name: "no server: nothing; one that comes gets the active tasks, one that goes takes them",
            steps: [
                Step(.show([card(Fixtures.running), card(Fixtures.ended(.completed), id: "old")])),
                Step(.server(true), [.request(ticket: 1, requestID: "chat_1", capabilities: .killable)]),
                Step(.server(false)),
                Step(.opened(1, "/v/1")),
                Step(.show([running(step: "Typing", progress: 0.5)])),
            ]),
        Timeline(
            name: "a view the server dropped is asked for again and sent whole",
            steps: start + [
                Step(.dropped("/v/9")),
                Step(.dropped("/v/1"), [.request(ticket: 2, requestID: "chat_1", capabilities: .killable)]),
                Step(.cancel("/v/1")),
                Step(.opened(2, "/v/2"), [.send(path: "/v/2", firstView)]),
            ]),
        Timeline(
            name: "a task that ends before its view comes: the view is sent its end when it comes",
            steps: [
                Step(.server(true)),
                Step(
                    .show([card(Fixtures.running)]), [.request(ticket: 1, requestID: "chat_1", capabilities: .killable)]
                ),
                Step(.show([card(Fixtures.ended(.completed))])),
                Step(
                    .opened(1, "/v/1"),
                    [
                        .send(
                            path: "/v/1",
                            [
                                .setDescriptionField(0, name: "Task", value: "Open Settings"),
                                .setInfoMessage("Completed"), .terminate(""),
                            ])
                    ]),
            ]),
        Timeline(
            name: "a task that leaves the cards is ended quietly, even before its view comes",
            steps: start + [
                Step(
                    .show([card(Fixtures.running, id: "b")]),
                    [
                        .request(ticket: 2, requestID: "b", capabilities: .killable),
                        .send(path: "/v/1", [.setError(1), .terminate("")]),
                    ]),
                Step(.show([]), []),
                Step(.opened(2, "/v/2"), [.send(path: "/v/2", [.setError(1), .terminate("")])]),
            ]),
        Timeline(
            name: "a refused view waits for the next server",
            steps: [
                Step(.server(true)),
                Step(
                    .show([card(Fixtures.running)]), [.request(ticket: 1, requestID: "chat_1", capabilities: .killable)]
                ),
                Step(.refused(1)),
                Step(.show([running(step: "Typing", progress: 0.5)])),
                Step(.server(true), [.request(ticket: 2, requestID: "chat_1", capabilities: .killable)]),
            ]),
    ]

    static var recordedStop: Card {
        var running = Fixtures.running
        running.answer = AnswerView(answer: "stop")
        return card(running)
    }

    @Test(arguments: timelines)
    func eachInputGivesItsEffects(timeline: Timeline) {
        var plan = JobViewPlan()
        for (index, step) in timeline.steps.enumerated() {
            let effects: [Effect] =
                switch step.input {
                case let .show(cards): plan.show(cards)
                case let .server(present): plan.serverChanged(present: present)
                case let .opened(ticket, path): plan.opened(ticket: ticket, path: path)
                case let .refused(ticket): plan.refused(ticket: ticket)
                case let .dropped(path): plan.dropped(path: path)
                case let .cancel(path): plan.cancelRequested(path: path)
                }
            #expect(effects == step.effects, "step \(index): \(step.input)")
        }
    }

    struct Words: Sendable, CustomTestStringConvertible {
        var name: String
        var card: Card
        var view: JobViewPlan.View
        var testDescription: String { name }
    }

    static let words: [Words] = [
        Words(
            name: "running, with progress", card: card(Fixtures.running),
            view: .init(
                infoMessage: "Checking the current screen", title: "Open Settings", waitingFor: nil, percent: 21)),
        Words(
            name: "the app wanted, progress hidden", card: card(Fixtures.needsApp),
            view: .init(
                infoMessage: "Waiting for the Aiden app", title: "Open Settings", waitingFor: "The app on the phone",
                percent: nil)),
        Words(
            name: "no step, no title", card: card(SnapshotView(status: .known(.running))),
            view: .init(infoMessage: "Running", title: "Task chat_1", waitingFor: nil, percent: nil)),
    ]

    @Test(arguments: words)
    func eachCardGivesItsWords(row: Words) {
        #expect(JobViewPlan.view(row.card) == row.view)
    }

    @Test func aViewBehindASlowServerKeepsTheLastCallForEachPart() {
        #expect(
            Call.merged(
                [.setInfoMessage("a"), .setPercent(10), .setDescriptionField(1, name: "Waiting for", value: "You")],
                [.setPercent(20), .clearDescriptionField(1)])
                == [.setInfoMessage("a"), .setPercent(20), .clearDescriptionField(1)])
        #expect(
            Call.merged([.setInfoMessage("a")], [.setInfoMessage("b"), .setError(1), .terminate("")])
                == [.setInfoMessage("b"), .setError(1), .terminate("")])
    }
}
