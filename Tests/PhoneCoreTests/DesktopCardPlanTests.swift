import Testing
import WireFormat

@testable import PhoneCore

/// `DesktopCardPlan` as timelines: what goes to the notification server, with which urgency and id, when it
/// closes, and what the person's presses and dismissals become.
@Suite struct DesktopCardPlanTests {
    static let dunst = DesktopCardPlan.Server(name: "dunst")

    static func card(_ snapshot: SnapshotView) -> Card {
        Card(state: CardState(snapshot: snapshot), snapshot: snapshot, link: Fixtures.usbUp)
    }

    static func task(_ id: String, _ base: SnapshotView = Fixtures.running, revision: UInt64 = 42) -> SnapshotView {
        var snapshot = base
        snapshot.requestID = id
        snapshot.revision = revision
        return snapshot
    }

    /// The posts among `effects`, as (request id or connection, urgency, replaces id).
    static func posts(_ effects: [DesktopCardPlan.Effect]) -> [String] {
        effects.compactMap {
            guard case let .notify(post) = $0 else { return nil }
            let name: String =
                switch post.card.subject {
                case let .task(id): id
                case let .connection(id): "connection " + id
                }
            return "\(name) \(post.urgency) replaces \(post.replacesID)"
        }
    }

    /// Timeline: one task from start to end keeps one notification id; an unchanged card is not sent again;
    /// a second update while the first post has no id yet waits for it.
    @Test func oneNotificationPerTaskThroughItsLife() {
        var plan = DesktopCardPlan()
        #expect(plan.handle(.serverAppeared(Self.dunst), at: .zero).isEmpty)
        let start = plan.handle(.cards([Self.card(Self.task("chat_1"))], alerts: []), at: .seconds(1))
        #expect(Self.posts(start) == ["chat_1 normal replaces 0"])
        var progressed = Self.task("chat_1", revision: 43)
        progressed.progress = 0.5
        // The id has not come back yet: the update waits (never a second notification for the task).
        #expect(plan.handle(.cards([Self.card(progressed)], alerts: []), at: .seconds(2)).isEmpty)
        #expect(Self.posts(plan.handle(.posted(.task("chat_1"), id: 7), at: .seconds(2))) == ["chat_1 low replaces 7"])
        #expect(plan.handle(.posted(.task("chat_1"), id: 7), at: .seconds(2)).isEmpty)
        // The same card again: nothing sent.
        #expect(plan.handle(.cards([Self.card(progressed)], alerts: []), at: .seconds(3)).isEmpty)
        // The handoff alert makes its card's update critical; the end's alert normal.
        let handoff = Self.task("chat_1", Fixtures.handoff, revision: 44)
        let asked = plan.handle(
            .cards([Self.card(handoff)], alerts: [Alert(transition: .handoff, requestID: "chat_1")]), at: .seconds(4))
        #expect(Self.posts(asked) == ["chat_1 critical replaces 7"])
        _ = plan.handle(.posted(.task("chat_1"), id: 7), at: .seconds(4))
        let done = Self.task("chat_1", Fixtures.ended(.completed), revision: 45)
        let ended = plan.handle(
            .cards([Self.card(done)], alerts: [Alert(transition: .completed, requestID: "chat_1")]), at: .seconds(5))
        #expect(Self.posts(ended) == ["chat_1 normal replaces 7"])
        #expect(plan.id(of: .task("chat_1")) == 7)
    }

    /// Timeline on mako: a task's updates replace its notification by the tag alone (replaces 0; mako 1.7 crashed
    /// on an id and the same tag together), and still wait for the first post's id.
    @Test func onMakoATasksCardReplacesByItsTagAlone() {
        var plan = DesktopCardPlan()
        _ = plan.handle(.serverAppeared(DesktopCardPlan.Server(name: "mako")), at: .zero)
        #expect(
            Self.posts(plan.handle(.cards([Self.card(Self.task("chat_1"))], alerts: []), at: .seconds(1)))
                == ["chat_1 normal replaces 0"])
        var progressed = Self.task("chat_1", revision: 43)
        progressed.progress = 0.5
        #expect(plan.handle(.cards([Self.card(progressed)], alerts: []), at: .seconds(2)).isEmpty, "waits for the id")
        let update = plan.handle(.posted(.task("chat_1"), id: 7), at: .seconds(2))
        #expect(Self.posts(update) == ["chat_1 low replaces 0"])
        _ = plan.handle(.posted(.task("chat_1"), id: 7), at: .seconds(2))
        #expect(plan.id(of: .task("chat_1")) == 7)
        #expect(DesktopCardPlan.Server(name: "dunst").replacesByTag == false, "elsewhere by id, as before")
    }

    /// An alert for a task whose card did not change still fires: its card is sent again with the alert's urgency.
    @Test func anAlertOnAnUnchangedCardStillFiresOnce() {
        var plan = DesktopCardPlan()
        _ = plan.handle(.serverAppeared(Self.dunst), at: .zero)
        let handoff = Self.card(Self.task("chat_1", Fixtures.handoff))
        _ = plan.handle(.cards([handoff], alerts: []), at: .zero)
        _ = plan.handle(.posted(.task("chat_1"), id: 3), at: .zero)
        let alert = Alert(transition: .handoff, requestID: "chat_1", eventID: 9)
        #expect(
            Self.posts(plan.handle(.cards([handoff], alerts: [alert]), at: .seconds(1))) == [
                "chat_1 critical replaces 3"
            ])
        _ = plan.handle(.posted(.task("chat_1"), id: 3), at: .seconds(1))
        #expect(plan.handle(.cards([handoff], alerts: []), at: .seconds(2)).isEmpty)
    }

    /// Two tasks, two notifications; an alert about a task never seen is shown alone, and `connected` apart.
    @Test func eachTaskItsOwnAndAlertsWithoutACardAlone() {
        var plan = DesktopCardPlan()
        _ = plan.handle(.serverAppeared(Self.dunst), at: .zero)
        let both = plan.handle(
            .cards(
                [Self.card(Self.task("chat_1")), Self.card(Self.task("chat_2", revision: 50))],
                alerts: [
                    Alert(transition: .failed, requestID: "chat_9", eventID: 4),
                    Alert(transition: .connected, connectionID: "usb-7"),
                ]),
            at: .zero)
        #expect(
            Self.posts(both).sorted() == [
                "chat_1 normal replaces 0", "chat_2 normal replaces 0", "chat_9 normal replaces 0",
                "connection usb-7 low replaces 0",
            ])
    }

    /// An ended card leaves at its dismissal time; a task that leaves the session's list leaves the desktop.
    @Test func endedCardsLeaveAtTheirDismissalTimeAndGoneTasksAtOnce() {
        var plan = DesktopCardPlan()
        _ = plan.handle(.serverAppeared(Self.dunst), at: .zero)
        var ended = Self.task("chat_1", Fixtures.ended(.completed))
        ended.dismissAfterSeconds = 30
        _ = plan.handle(.cards([Self.card(ended), Self.card(Self.task("chat_2"))], alerts: []), at: .seconds(10))
        _ = plan.handle(.posted(.task("chat_1"), id: 1), at: .seconds(10))
        _ = plan.handle(.posted(.task("chat_2"), id: 2), at: .seconds(10))
        #expect(plan.nextDeadline == .seconds(40))
        #expect(plan.handle(.deadlineReached, at: .seconds(39)).isEmpty, "an early timer closes nothing")
        #expect(plan.handle(.deadlineReached, at: .seconds(40)) == [.close(id: 1)])
        #expect(plan.nextDeadline == nil)
        #expect(
            plan.handle(.cards([Self.card(ended), Self.card(Self.task("chat_2"))], alerts: []), at: .seconds(41))
                .isEmpty)
        #expect(plan.handle(.cards([], alerts: []), at: .seconds(42)) == [.close(id: 2)])
    }

    /// Presses answer the revision the card showed, once each; Dismiss closes the card for good; Open opens.
    @Test func pressesAnswerWhatTheCardShowed() {
        var plan = DesktopCardPlan()
        _ = plan.handle(.serverAppeared(Self.dunst), at: .zero)
        _ = plan.handle(.cards([Self.card(Self.task("chat_1", Fixtures.handoff, revision: 44))], alerts: []), at: .zero)
        _ = plan.handle(.posted(.task("chat_1"), id: 5), at: .zero)
        #expect(
            plan.handle(.invoked(id: 5, key: "done"), at: .zero) == [.answer(.done, requestID: "chat_1", revision: 44)])
        #expect(plan.handle(.invoked(id: 5, key: "done"), at: .zero).isEmpty, "a second press of it sends nothing")
        #expect(plan.handle(.invoked(id: 5, key: "dismiss"), at: .zero).isEmpty, "not a button of this card")
        #expect(plan.handle(.invoked(id: 6, key: "stop"), at: .zero).isEmpty, "not this plan's notification")
        #expect(plan.handle(.invoked(id: 5, key: "default"), at: .zero) == [.open(requestID: "chat_1")])
        _ = plan.handle(
            .cards([Self.card(Self.task("chat_1", Fixtures.ended(.completed), revision: 46))], alerts: []), at: .zero)
        _ = plan.handle(.posted(.task("chat_1"), id: 5), at: .zero)
        #expect(
            plan.handle(.invoked(id: 5, key: "dismiss"), at: .zero)
                == [.answer(.dismiss, requestID: "chat_1", revision: 46), .close(id: 5)])
        #expect(
            plan.handle(
                .cards([Self.card(Self.task("chat_1", Fixtures.ended(.completed), revision: 46))], alerts: []),
                at: .zero
            ).isEmpty)
    }

    /// A server closes a notification when a button is pressed (unless it honours `resident`): the live card goes
    /// back on the desktop at once, and is not taken for the person dismissing it.
    @Test func aCloseAfterAPressPutsTheLiveCardBack() {
        var plan = DesktopCardPlan()
        _ = plan.handle(.serverAppeared(Self.dunst), at: .zero)
        _ = plan.handle(.cards([Self.card(Self.task("chat_1", Fixtures.handoff, revision: 44))], alerts: []), at: .zero)
        _ = plan.handle(.posted(.task("chat_1"), id: 5), at: .zero)
        #expect(
            plan.handle(.invoked(id: 5, key: "done"), at: .zero) == [.answer(.done, requestID: "chat_1", revision: 44)])
        #expect(Self.posts(plan.handle(.closed(id: 5, reason: 2), at: .zero)) == ["chat_1 low replaces 0"])
        _ = plan.handle(.posted(.task("chat_1"), id: 6), at: .zero)
        // Closed again with no press: the person's own dismissal of the live card.
        #expect(plan.handle(.closed(id: 6, reason: 2), at: .zero).isEmpty)
    }

    /// A server that honours `resident` keeps the card on a press: a close the person makes later is their own
    /// dismissal of the live card, not the press's, whether a post came in between or only time passed.
    @Test func aResidentCardClosedLaterByThePersonStaysClosed() {
        var plan = DesktopCardPlan()
        _ = plan.handle(.serverAppeared(Self.dunst), at: .zero)
        _ = plan.handle(.cards([Self.card(Self.task("chat_1", Fixtures.handoff, revision: 44))], alerts: []), at: .zero)
        _ = plan.handle(.posted(.task("chat_1"), id: 5), at: .zero)
        _ = plan.handle(.invoked(id: 5, key: "done"), at: .seconds(1))
        // The answer's card comes back from the board; the server replaces it in place, still shown.
        let answered = plan.handle(
            .cards([Self.card(Self.task("chat_1", revision: 45))], alerts: []), at: .milliseconds(1_050))
        #expect(Self.posts(answered) == ["chat_1 low replaces 5"])
        _ = plan.handle(.posted(.task("chat_1"), id: 5), at: .milliseconds(1_060))
        #expect(plan.handle(.closed(id: 5, reason: 2), at: .milliseconds(1_200)).isEmpty)

        var quiet = DesktopCardPlan()
        _ = quiet.handle(.serverAppeared(Self.dunst), at: .zero)
        _ = quiet.handle(.cards([Self.card(Self.task("chat_2", revision: 50))], alerts: []), at: .zero)
        _ = quiet.handle(.posted(.task("chat_2"), id: 8), at: .zero)
        #expect(quiet.handle(.invoked(id: 8, key: "default"), at: .seconds(1)) == [.open(requestID: "chat_2")])
        // Opened, no change on the board, no post: 5 s later the person closes it.
        #expect(quiet.handle(.closed(id: 8, reason: 2), at: .seconds(6)).isEmpty)
        #expect(
            quiet.handle(.cards([Self.card(Self.task("chat_2", revision: 51))], alerts: []), at: .seconds(7)).isEmpty)
    }

    /// Closed by the person: an ended card is dismissed on the board and stays gone; a live one comes back with
    /// its next alert only; expired, it comes back with its next change.
    @Test func closingByThePerson() {
        var plan = DesktopCardPlan()
        _ = plan.handle(.serverAppeared(Self.dunst), at: .zero)
        let ended = Self.card(Self.task("chat_1", Fixtures.ended(.failed), revision: 46))
        var running = Self.card(Self.task("chat_2", revision: 50))
        _ = plan.handle(.cards([ended, running], alerts: []), at: .zero)
        _ = plan.handle(.posted(.task("chat_1"), id: 1), at: .zero)
        _ = plan.handle(.posted(.task("chat_2"), id: 2), at: .zero)
        #expect(
            plan.handle(.closed(id: 1, reason: 2), at: .zero) == [.answer(.dismiss, requestID: "chat_1", revision: 46)])
        #expect(plan.handle(.closed(id: 2, reason: 2), at: .zero).isEmpty)
        running.snapshot?.progress = 0.9
        #expect(
            plan.handle(.cards([ended, running], alerts: []), at: .seconds(1)).isEmpty, "both stay off the desktop")
        let back = plan.handle(
            .cards(
                [ended, Self.card(Self.task("chat_2", Fixtures.handoff, revision: 51))],
                alerts: [Alert(transition: .handoff, requestID: "chat_2")]), at: .seconds(2))
        #expect(Self.posts(back) == ["chat_2 critical replaces 0"])
        _ = plan.handle(.posted(.task("chat_2"), id: 3), at: .seconds(2))
        #expect(plan.handle(.closed(id: 3, reason: 1), at: .seconds(3)).isEmpty)
        let changed = plan.handle(
            .cards([ended, Self.card(Self.task("chat_2", revision: 52))], alerts: []), at: .seconds(4))
        #expect(Self.posts(changed) == ["chat_2 low replaces 0"])
    }

    /// No server: nothing goes out, alerts keep their urgency; a server that appears (or a new owner after a
    /// restart) gets every live card again, as new notifications; xfce4-notifyd gets no progress hint.
    @Test func aServerThatAppearsOrRestartsGetsTheLiveCards() throws {
        var plan = DesktopCardPlan()
        let handoff = Self.card(Self.task("chat_1", Fixtures.handoff))
        #expect(
            plan.handle(.cards([handoff], alerts: [Alert(transition: .handoff, requestID: "chat_1")]), at: .zero)
                .isEmpty)
        let first = plan.handle(.serverAppeared(Self.dunst), at: .seconds(1))
        #expect(Self.posts(first) == ["chat_1 critical replaces 0"], "the alert given meanwhile still fires")
        _ = plan.handle(.posted(.task("chat_1"), id: 4), at: .seconds(1))
        #expect(plan.handle(.serverVanished, at: .seconds(2)).isEmpty)
        let again = plan.handle(.serverAppeared(DesktopCardPlan.Server(name: "xfce4-notifyd")), at: .seconds(3))
        #expect(Self.posts(again) == ["chat_1 low replaces 0"])
        guard case let .notify(post)? = again.first else { throw PlanFailure() }
        #expect(post.card.progress == nil, "xfce4-notifyd hides the buttons when given the value hint")
        #expect(post.card.buttons.contains(.answer(.done)))
    }

    /// xfce4-notifyd by the name it gives in `GetServerInformation`: Debian 12's 0.7.3 says `Xfce Notify Daemon`
    /// (under Xvfb the hint left only a progress bar of the card there), later ones
    /// `xfce4-notifyd`.
    @Test func xfce4NotifydGetsNoProgressHintByEitherName() {
        for name in ["Xfce Notify Daemon", "xfce4-notifyd"] {
            #expect(DesktopCardPlan.Server(name: name).takesProgress == false, "\(name)")
        }
        #expect(DesktopCardPlan.Server(name: "dunst").takesProgress)
    }

    /// A request id that names a new task after the old one's card was dismissed: a fresh card.
    @Test func aNewTaskUnderADismissedCardsIDIsShown() {
        var plan = DesktopCardPlan()
        _ = plan.handle(.serverAppeared(Self.dunst), at: .zero)
        _ = plan.handle(
            .cards([Self.card(Self.task("chat_1", Fixtures.ended(.completed), revision: 46))], alerts: []), at: .zero)
        _ = plan.handle(.posted(.task("chat_1"), id: 1), at: .zero)
        _ = plan.handle(.closed(id: 1, reason: 2), at: .zero)
        let new = plan.handle(.cards([Self.card(Self.task("chat_1", revision: 60))], alerts: []), at: .seconds(1))
        #expect(Self.posts(new) == ["chat_1 normal replaces 0"])
    }
}

private struct PlanFailure: Error {}
