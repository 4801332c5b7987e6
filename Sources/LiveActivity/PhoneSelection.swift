import WireFormat

/// What a phone's card shows (`TaskStore.selection(forPhone:…)`): the task first in line, and how many of the
/// other tasks that phone may see are active or waiting for the person (the card's "+2 running · 1 waiting").
package struct PhoneSelection: Sendable, Hashable {
    /// nil: nothing to show (`/api/live-activity/current` answers `not_found`).
    package var current: TaskSnapshot?
    package var others: OtherTasks

    package init(current: TaskSnapshot?, others: OtherTasks) {
        self.current = current
        self.others = others
    }
}
