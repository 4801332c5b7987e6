/// `return_entry` (docs/protocol.md §3.3): how the person gets back to the task from where this client shows
/// it, reported with every `POST /api/phone/app-state`. A Linux phone host has no app to deep-link
/// into; what it can honestly offer is the card on the terminal it runs in, or desktop notifications
/// in the person's session. With neither (`--json` and no notification server) it reports none
/// (`"return_entry":""`, `"return_entry_available":false`).
package enum ReturnEntry: String, Sendable, Hashable, CaseIterable {
    /// The card, drawn on the terminal `aiden-phone` runs in.
    case card
    /// Notifications from a server on the person's session bus (`org.freedesktop.Notifications`).
    case notification

    /// The entry to report among those offered: the card first (it shows the whole task and stays on
    /// screen), then notifications (they reach the person wherever they are, but pass).
    package static func preferred(among offered: Set<ReturnEntry>) -> ReturnEntry? {
        allCases.first(where: offered.contains)
    }
}
