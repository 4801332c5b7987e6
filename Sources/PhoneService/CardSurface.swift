import PhoneCore

/// A place that shows the session's task cards, one per task, beside the terminal card: the desktop's
/// notifications (`DesktopCardSurface`), the bar status (`StatusSocket`), the tray item with the launcher entry
/// (`TraySurface`) and KDE's job views (`JobViewSurface`). `PhoneClient` calls `show` after each step that
/// changed the cards, the session's own card or gave alerts, on its serial executor; an update that carries
/// alerts only once their alert record is written; it must not block (hand slow work to a `Lane`). What a
/// surface shows is decided from these cards alone, as the terminal card is from `Card`.
package protocol CardSurface: Sendable {
    /// `cards`: every task the session has seen that may still be on the board (`PhoneSession.taskCards`);
    /// `current`: the session's own card (`PhoneSession.card`: standby, disconnected, or the task shown first; nil
    /// before it starts); `alerts`: the alerts this step gave, once each, which a surface shows as urgent updates of
    /// their cards.
    func show(_ cards: [Card], current: Card?, alerts: [Alert])
}
