import FoundationEssentials
import PhoneCore
import Synchronization

/// The card for people. On a terminal it is redrawn in place, alerts and log lines scroll above
/// it (with a bell for alerts); otherwise (a pipe, a file) each changed card is printed whole,
/// cards separated by a blank line. Other events are not shown here: problems are on the card and
/// in the log.
package final class TerminalOutput: PhoneOutput, AlertNotifier {
    package struct Mode: Sendable, Equatable {
        /// Redraw in place with ANSI cursor movement.
        package var inPlace: Bool
        package var color: Bool
        package var width: Int
        /// Keys are read from the terminal: the card lists the ones that answer its task.
        package var keys: Bool

        package init(inPlace: Bool, color: Bool, width: Int, keys: Bool = false) {
            self.inPlace = inPlace
            self.color = color
            self.width = width
            self.keys = keys
        }

        /// Decided from the terminal and the environment: in place and colored on a terminal,
        /// colorless when `NO_COLOR` is set and not empty (no-color.org), plain text otherwise,
        /// also on a terminal that says it cannot move the cursor (`TERM=dumb`, Emacs' shell).
        package static func detect(channel: OutputChannel, environment: [String: String]) -> Mode {
            let terminal = channel.isTerminal && environment["TERM"] != "dumb"
            let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
            let columns = channel.terminalColumns ?? Int(environment["COLUMNS"] ?? "") ?? 80
            return Mode(inPlace: terminal, color: terminal && !noColor, width: width(forColumns: columns))
        }

        /// The card's width on a terminal this wide: the terminal's, from 20 (the renderer's
        /// narrowest: a narrower terminal wraps the card's lines) to 60 columns.
        package static func width(forColumns columns: Int) -> Int {
            min(max(columns, CardTextRenderer.Options.minimumWidth), 60)
        }
    }

    /// What is on the screen: the renderer for the current width, and the last card drawn.
    private struct Drawn: Sendable {
        var renderer: CardTextRenderer
        var card: Card?
        var lines: [String]?
    }

    /// As detected at start; the width follows the terminal (`resize(columns:)`).
    package let mode: Mode
    private let channel: OutputChannel
    private let drawn: Mutex<Drawn>
    private let screen = Mutex(TerminalScreen())

    package init(channel: OutputChannel = .standardOutput, mode: Mode) {
        self.channel = channel
        self.mode = mode
        drawn = Mutex(
            Drawn(renderer: CardTextRenderer(options: .init(width: mode.width, color: mode.color, keys: mode.keys))))
    }

    /// The terminal is now `columns` wide (SIGWINCH): the card is drawn again at the new width, on
    /// fresh lines, since the terminal may have rewrapped the old one.
    package func resize(columns: Int) {
        let width = Mode.width(forColumns: columns)
        let lines = drawn.withLock { drawn -> [String]? in
            guard drawn.renderer.options.width != width else { return nil }
            drawn.renderer = CardTextRenderer(options: .init(width: width, color: mode.color, keys: mode.keys))
            guard let card = drawn.card else { return nil }
            drawn.lines = drawn.renderer.lines(for: card, at: Date())
            return drawn.lines
        }
        guard let lines, mode.inPlace else { return }
        screen.withLock { screen in
            screen.forget()
            channel.write(screen.draw(lines))
        }
    }

    package func emit(_ event: PhoneEvent, at date: Date) {
        if case let .answered(outcome) = event {
            // The result of a key or a notification's action (or the board's refusal), in words.
            if mode.inPlace { printAbove(">> " + outcome.line) } else { channel.write(">> " + outcome.line + "\n\n") }
            return
        }
        guard case let .card(card) = event else { return }
        let (lines, changed) = drawn.withLock { drawn -> ([String], Bool) in
            let lines = drawn.renderer.lines(for: card, at: date)
            defer {
                drawn.card = card
                drawn.lines = lines
            }
            return (lines, drawn.lines != lines)
        }
        guard changed else { return }
        if mode.inPlace {
            let lost = channel.takeLostOutput()
            screen.withLock { screen in
                if lost { screen.forget() }
                channel.write(screen.draw(lines))
            }
        } else {
            channel.write(lines.joined(separator: "\n") + "\n\n")
        }
    }

    /// Draws the last card again as of `date`, in place, when that changes a line: the tool line's elapsed time
    /// moves on a card that does not change. Off a terminal nothing is printed (a pipe gets each changed card).
    package func redraw(at date: Date) {
        guard mode.inPlace else { return }
        let lines = drawn.withLock { drawn -> [String]? in
            guard let card = drawn.card else { return nil }
            let lines = drawn.renderer.lines(for: card, at: date)
            guard lines != drawn.lines else { return nil }
            drawn.lines = lines
            return lines
        }
        guard let lines else { return }
        screen.withLock { channel.write($0.draw(lines)) }
    }

    package func deliver(_ alert: Alert) {
        let line = ">> " + AlertText.line(alert)
        if mode.inPlace {
            let painted = mode.color ? "\u{1B}[1m" + line + "\u{1B}[0m" : line
            screen.withLock { channel.write("\u{07}" + $0.printAbove(painted)) }
        } else {
            channel.write(line + "\n\n")
        }
    }

    /// A log line shown above the card, for when stderr is the same terminal (a plain write there
    /// would tear the card).
    package func printAbove(_ line: String) {
        screen.withLock { channel.write($0.printAbove(line)) }
    }

    /// Waits until everything shown so far is on the terminal (shutdown).
    package func flush() {
        channel.flush()
    }
}
