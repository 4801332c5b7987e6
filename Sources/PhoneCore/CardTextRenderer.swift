import FoundationEssentials
import WireFormat

/// Renders a `Card` as a few terminal lines for people. Pure: the shell decides the width and
/// whether to use color (isatty, `NO_COLOR`) and redraws the lines in place.
///
/// Only ASCII is added around the board's text (but for the `·` and `—` of the lines docs/phone-client.md gives:
/// "+2 running · 1 waiting", "Stop requested — waiting for the agent"). Text from
/// the board is cleaned (`BoardText.clean`), so a task title cannot move the cursor, recolor the
/// terminal or reorder the card. Widths are terminal cells (`TerminalCellWidth`): a CJK or emoji title is cut and
/// padded on whole characters, so no line is wider than the card and the in-place redraw holds.
package struct CardTextRenderer: Sendable {
    package struct Options: Sendable, Equatable {
        /// Terminal cells per line; at least `minimumWidth`.
        package var width: Int
        /// ANSI SGR colors on the badge, the problem line and the link line.
        package var color: Bool
        /// Whether the card lists the keys that answer the task (`s` stop, …): only where keys are read.
        package var keys: Bool

        /// The narrowest card: the widest badge (`[DISCONNECTED]`) still leaves 5 cells of title.
        package static let minimumWidth = 20

        package init(width: Int = 60, color: Bool = false, keys: Bool = false) {
            self.width = max(Self.minimumWidth, width)
            self.color = color
            self.keys = keys
        }
    }

    package let options: Options

    package init(options: Options = Options()) {
        self.options = options
    }

    /// The card as one string, lines separated by `\n`, no trailing newline. `wall`: the phone's clock as the
    /// card is drawn, for the tool line's elapsed time (nil: the line without it).
    package func render(_ card: Card, at wall: Date? = nil) -> String {
        lines(for: card, at: wall).joined(separator: "\n")
    }

    package func lines(for card: Card, at wall: Date? = nil) -> [String] {
        var lines = [header(for: card)]
        lines += body(for: card, at: wall).map(fit)
        if card.snapshot != nil, let others = card.others?.cardLine { lines.append(fit(others)) }
        if options.keys, case let answers = Answer.available(on: card), !answers.isEmpty {
            lines.append(fit("Keys: " + answers.map { "\($0.key) \($0.verb.lowercased())" }.joined(separator: ", ")))
        }
        if let problem = card.problem {
            // The one line people must read in full: wrapped, not cut.
            lines += wrap("! " + BoardText.clean(problem.description)).map { paint($0, .problem) }
        }
        let linkLine = "USB: \(Self.usbText(card.link.usb)) | Wake: \(card.link.wake.rawValue)"
        if let detail = card.link.wakeDetail {
            // Why the Wakes do not arrive (pairing, refused, no adapter) is read in full: wrapped, not cut.
            lines += wrap(linkLine + " (" + BoardText.clean(detail) + ")").map { paint($0, .dim) }
        } else {
            lines.append(paint(fit(linkLine), .dim))
        }
        return lines
    }

    private func header(for card: Card) -> String {
        let badge = "[" + Self.badge(card.state) + "]"
        let title = card.snapshot?.taskTitle.map(BoardText.clean).flatMap { $0.isEmpty ? nil : $0 } ?? "Aiden"
        let room = options.width - badge.count - 1
        let left = truncate(title, to: room)
        // Fills the cell a wide character left free at the cut, too: the badge ends the line.
        let padding = String(repeating: " ", count: options.width - TerminalCellWidth.of(left) - badge.count)
        return left + padding + paint(badge, .state(card.state))
    }

    private func body(for card: Card, at wall: Date?) -> [String] {
        let snapshot = card.snapshot
        var lines: [String] = []
        switch card.state {
        case .standby:
            lines.append("No active task.")
        case .disconnected:
            if card.link.usb == .down {
                lines.append("USB link to the board is down.")
            } else if card.problem == nil {
                lines.append("Waiting for the board...")
            }
        case .running, .needsApp, .handoff:
            if card.state == .needsApp { lines.append("Bring the companion app to the foreground.") }
            if card.state == .handoff { lines.append("Your action is needed on the phone.") }
            if snapshot?.staleSince != nil { lines.append(Self.staleLine(snapshot)) }
            lines += field("Step", snapshot?.currentStep)
            if card.state == .handoff {
                lines += field("Action", snapshot?.currentAction.map(Self.humanize))
                lines += field("Target", snapshot?.currentTarget)
                lines += field("App", snapshot?.currentApp)
            } else {
                lines += field("Phase", snapshot?.phase.map { Self.humanize($0.rawValue) })
            }
            if let tool = ToolLine.text(of: snapshot, at: wall) { lines.append(tool) }
            // The person's answer, while the agent has not acted on it yet.
            if let recorded = card.recordedAnswer { lines.append(recorded.cardLine) }
            if snapshot?.showsProgress == true, let progress = snapshot?.progress {
                lines.append(progressBar(progress))
            }
        case .completed, .failed, .canceled:
            switch card.state {
            case .completed: lines.append("Completed.")
            case .failed: lines += field("Failed", snapshot?.lastError, otherwise: "Failed.").flatMap(wrap)
            default: lines.append("Canceled.")
            }
            lines += field("Last step", snapshot?.currentStep)
        }
        return lines
    }

    /// `Label: value` when the value is non-empty, else `otherwise` (if any).
    /// The board marked the task stale: its agent sent nothing for `stale_after_seconds`. Said in whole
    /// minutes (seconds below one), with "+" because the silence has gone on since.
    static func staleLine(_ snapshot: SnapshotView?) -> String {
        guard let seconds = snapshot?.staleAfterSeconds, seconds > 0 else { return "No news from the agent." }
        let span = seconds >= 60 ? "\(seconds / 60)+ min" : "\(seconds)+ s"
        return "No news from the agent for \(span)."
    }

    private func field(_ label: String, _ value: String?, otherwise: String? = nil) -> [String] {
        if let value = value.map(BoardText.clean), !value.isEmpty { return ["\(label): \(value)"] }
        return otherwise.map { [$0] } ?? []
    }

    /// `[########............]  40%`, as wide as the line allows (at most 30 cells).
    private func progressBar(_ progress: Double) -> String {
        let fraction = min(1, max(0, progress))
        let cells = min(30, options.width - 7)
        let filled = Int((fraction * Double(cells)).rounded())
        let percent = String(Int((fraction * 100).rounded()))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: cells - filled)
        return "[" + bar + "] " + String(repeating: " ", count: 3 - percent.count) + percent + "%"
    }

    private func fit(_ line: String) -> String { truncate(line, to: options.width) }

    /// Word-wraps to the width, continuation lines indented by two spaces, at most `maximumLines`
    /// (the last one cut with `...`), so an error stays readable and the card stays small. A word
    /// wider than a line (CJK text has no spaces) is broken between characters instead of cut.
    private func wrap(_ text: String) -> [String] {
        let maximumLines = 4
        let indent = "  "
        var lines: [String] = []
        var line = ""
        var cells = 0
        var started: Bool { !line.isEmpty && line != indent }
        for word in text.split(separator: " ") {
            var rest = word
            var restCells = TerminalCellWidth.of(rest)
            let fitsAFreshLine = indent.count + restCells <= options.width
            if started, cells + 1 + restCells > options.width, fitsAFreshLine {
                lines.append(line)
                (line, cells) = (indent, indent.count)
            }
            while true {
                let gap = started ? 1 : 0
                if cells + gap + restCells <= options.width {
                    line += String(repeating: " ", count: gap) + rest
                    cells += gap + restCells
                    break
                }
                let piece = TerminalCellWidth.prefix(rest, fitting: options.width - cells - gap)
                if piece.text.isEmpty && gap == 0 {
                    // One grapheme cluster wider than a whole line: nothing can show it.
                    line += truncate(String(rest), to: options.width - cells)
                    break
                }
                if !piece.text.isEmpty {
                    line += String(repeating: " ", count: gap) + piece.text
                    rest = rest[piece.text.endIndex...]
                    restCells -= piece.cells
                }
                lines.append(line)
                (line, cells) = (indent, indent.count)
            }
        }
        if started { lines.append(line) }
        if lines.count > maximumLines {
            lines = Array(lines.prefix(maximumLines))
            lines[maximumLines - 1] += " ..."
        }
        return lines.map(fit)
    }

    /// `text` if it fits in `width` cells, else as many whole characters as fit with `...`.
    private func truncate(_ text: String, to width: Int) -> String {
        guard TerminalCellWidth.of(text) > width else { return text }
        return String(TerminalCellWidth.prefix(Substring(text), fitting: max(0, width - 3)).text) + "..."
    }

    private enum Paint {
        case state(CardState)
        case problem
        case dim
    }

    private func paint(_ text: String, _ paint: Paint) -> String {
        guard options.color else { return text }
        let code: String
        switch paint {
        case .state(let state): code = Self.colorCode(state)
        case .problem: code = "1;31"
        case .dim: code = "2"
        }
        return "\u{1B}[\(code)m" + text + "\u{1B}[0m"
    }
}

extension CardTextRenderer {
    static func badge(_ state: CardState) -> String {
        switch state {
        case .standby: "STANDBY"
        case .running: "RUNNING"
        case .needsApp: "NEEDS APP"
        case .handoff: "YOUR TURN"
        case .completed: "COMPLETED"
        case .failed: "FAILED"
        case .canceled: "CANCELED"
        case .disconnected: "DISCONNECTED"
        }
    }

    /// SGR parameters: bold plus a color people read the same way everywhere (green done, red failed).
    static func colorCode(_ state: CardState) -> String {
        switch state {
        case .standby: "1;36"
        case .running: "1;34"
        case .needsApp: "1;33"
        case .handoff: "1;35"
        case .completed: "1;32"
        case .failed: "1;31"
        case .canceled, .disconnected: "1;90"
        }
    }

    static func usbText(_ usb: LinkState.USB) -> String {
        switch usb {
        case .up: "up"
        case .down: "down"
        case .unmonitored: "not monitored"
        }
    }

    /// `request_user_input` → `request user input`.
    static func humanize(_ name: String) -> String {
        name.replacing("_", with: " ")
    }
}
