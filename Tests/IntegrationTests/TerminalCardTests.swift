import Foundation
import Testing

/// The card on a real terminal emulator: the built aiden-phone in tmux, fetching from aiden-board
/// on loopback, its screen read back with `capture-pane`. Titles and steps in CJK, emoji and mixed
/// text, at several widths and through resizes: every card line stays on one row and within the
/// width (as tmux counts cells), the title shows, and a redraw leaves nothing of the card before
/// it.
@Suite(.serialized, .enabled(if: TmuxServer.unavailable == nil, Comment(rawValue: TmuxServer.unavailable ?? "")))
struct TerminalCardTests {
    /// (title, step, next step). The titles use only characters tmux 3.3 draws as wide as the card
    /// measures them, so the header must fill the card exactly; the steps also hold emoji tmux 3.3
    /// draws a cell narrower (`❤️`, `1️⃣`), which may only leave a line short.
    static let texts: [(String, String, String)] = [
        ("設定を開いてネットワークに接続する", "パスワードを入力しています", "接続を確認中"),
        ("🚀 Deploy 👨\u{200D}👩\u{200D}👧 photos 🇯🇵 👍🏽 ✅", "❤\u{FE0F} Uploading 1\u{FE0F}\u{20E3} 写真", "✅ Done 🎉"),
        (
            "한국어 Ｗｉ－Ｆｉ Café e\u{0301}te\u{0301} 設定 and a long English tail to cut",
            "Step 設定 ✅ Ｗｉ－Ｆｉ and mixed text that runs past the end of the card", "短い"
        ),
    ]

    static let badges = ["[STANDBY]", "[RUNNING]", "[COMPLETED]", "[DISCONNECTED]"]

    @Test(arguments: [40, 60, 80, 120])
    func wideTextFitsAndIsRedrawnInPlace(columns: Int) throws {
        let session = try CardSession(columns: columns)
        defer { session.stop() }
        try #require(
            session.tmux.waitFor { Self.card(in: $0)?.badge == "[STANDBY]" }, "no standby card: \(session.screen)")
        for (title, step, nextStep) in Self.texts {
            let id = try session.ctl([
                "task", "start", "--title", title, "--step", step, "--phase", "acting", "--progress", "0.4",
            ])
            let running = try session.expectCard("[RUNNING]", title: title, step: ("Step", step))
            let next = try session.expectCard(
                "[RUNNING]", title: title, step: ("Step", nextStep),
                after: { _ = try session.ctl(["task", "update", "--id", id, "--step", nextStep]) })
            #expect(next.above == running.above, "a redraw in place leaves nothing of the card before it")
            _ = try session.ctl(["task", "end", "--id", id, "--status", "completed"])
            let drawn = try session.expectCard("[COMPLETED]", title: title, step: ("Last step", nextStep))
            #expect(drawn.lines.contains("Completed."))
            // The alert is shown once its record is written, so it may follow the card by a moment: above it then.
            let alerted = session.tmux.waitFor { lines in
                Self.card(in: lines).map { card in
                    card.badge == "[COMPLETED]"
                        && card.above.contains { $0.hasPrefix(">> ") && $0.lowercased().contains("completed") }
                } ?? false
            }
            #expect(alerted, "\(session.screen)")
            let completed = try #require(Self.card(in: try session.tmux.writtenLines()))
            #expect(completed.lines.contains("Completed."))
            // Above the card only what scrolls: alerts (`>> `) and log lines, never part of a card.
            for line in completed.above {
                #expect(line.hasPrefix(">> ") || line.hasPrefix("aiden-phone"), "left over: \(line)")
            }
        }
    }

    /// SIGWINCH: the card is drawn again at the new width below what the terminal shows (tmux
    /// rewraps the old rows, nothing of them is overwritten), then redrawn in place at that width.
    @Test func aResizeRedrawsTheCardAtTheNewWidth() throws {
        let session = try CardSession(columns: 80)
        defer { session.stop() }
        let (title, step, _) = Self.texts[0]
        try #require(session.tmux.waitFor { Self.card(in: $0)?.badge == "[STANDBY]" }, "\(session.screen)")
        let id = try session.ctl(["task", "start", "--title", title, "--step", step, "--progress", "0.1"])
        try session.expectCard("[RUNNING]", title: title, step: ("Step", step))
        var current = step
        // Each new width changes the card's (20 to 60 columns), so each resize redraws it.
        for (index, columns) in [40, 120, 30, 52].enumerated() {
            let before = try session.tmux.writtenLines()
            session.columns = columns
            let resized = try session.expectCard(
                "[RUNNING]", title: title, step: ("Step", current), drawnAgain: true,
                after: { try session.tmux.resize(columns: columns) })
            #expect(resized.above == before, "\(columns) columns: the earlier lines are as they were")
            current = "\(step) \(index + 2)"
            let next = current
            let redrawn = try session.expectCard(
                "[RUNNING]", title: title, step: ("Step", next),
                after: { _ = try session.ctl(["task", "update", "--id", id, "--step", next]) })
            #expect(redrawn.above == resized.above, "\(columns) columns: redrawn in place")
        }
    }

    /// The card's keys on a real terminal (docs/phone-client.md, "Keys on the card"): the card lists them,
    /// `s` asks above the card, any key but `y` drops it, `y` posts it and the outcome is a line above the
    /// card. The last step goes through the board's answer endpoint (docs/protocol.md §3.8): a board
    /// without it answers 404 and the line says so.
    @Test func theKeysAskThenAnswerAboveTheCard() throws {
        let session = try CardSession(columns: 60)
        defer { session.stop() }
        try #require(session.tmux.waitFor { Self.card(in: $0)?.badge == "[STANDBY]" }, "\(session.screen)")
        let id = try session.ctl(["task", "start", "--title", "Open Settings", "--can-stop", "true"])
        #expect(session.tmux.waitFor { $0.contains("Keys: s stop") }, "\(session.screen)")
        try session.tmux.tmux(["send-keys", "-l", "s"])
        #expect(session.tmux.waitFor { $0.contains(">> Stop “Open Settings”? y/N") }, "\(session.screen)")
        try session.tmux.tmux(["send-keys", "-l", "n"])
        #expect(session.tmux.waitFor { $0.contains(">> Stop: not sent.") }, "\(session.screen)")
        // Keys are not echoed: nothing but the lines the client printed.
        #expect(try session.tmux.writtenLines().allSatisfy { $0 != "s" && $0 != "n" })
        try session.tmux.tmux(["send-keys", "-l", "s"])
        try session.tmux.tmux(["send-keys", "-l", "y"])
        #expect(
            session.tmux.waitFor { $0.contains(">> Stop requested for “Open Settings” (\(id))") }, "\(session.screen)")
        #expect(session.tmux.waitFor { $0.contains("Stop requested — waiting for the agent") }, "\(session.screen)")
    }
}

extension TerminalCardTests {
    /// A card as the terminal shows it: its lines from the header (the last line that ends with a
    /// badge) down, and the lines above it.
    struct ShownCard {
        var above: [String]
        var lines: [String]
        var badge: String
    }

    static func card(in lines: [String]) -> ShownCard? {
        guard
            let header = lines.lastIndex(where: { line in badges.contains { line.hasSuffix($0) } }),
            let badge = badges.first(where: { lines[header].hasSuffix($0) })
        else { return nil }
        return ShownCard(above: Array(lines[..<header]), lines: Array(lines[header...]), badge: badge)
    }

    /// Whether `shown` is `text`, or a whole-character prefix of it cut with `...`.
    static func shows(_ text: String, as shown: Substring) -> Bool {
        if Array(shown) == Array(text) { return true }
        guard shown.hasSuffix("...") else { return false }
        let kept = Array(shown.dropLast(3))
        return !kept.isEmpty && Array(text).starts(with: kept)
    }
}

/// aiden-board on loopback and aiden-phone in a tmux window of its own.
final class CardSession {
    let board: BoardProcess
    let phone: PhoneProcess
    let tmux: TmuxServer
    /// The window's width now.
    var columns: Int
    /// The card's width on it.
    var width: Int { min(max(columns, 20), 60) }

    init(columns: Int) throws {
        let wakePort = try freeLoopbackPort()
        board = try BoardProcess(wakeTarget: "127.0.0.1:\(wakePort)")
        phone = try PhoneProcess(
            boardURL: "http://127.0.0.1:\(board.port)", wakePort: wakePort, logLevel: "warning")
        tmux = try TmuxServer(in: phone.scratch)
        self.columns = columns
        try board.start()
        guard let binary = Products.path("aiden-phone") else { throw IntegrationError("aiden-phone not built") }
        try tmux.start(columns: columns, rows: 60, [binary, "--config", phone.configPath])
    }

    func stop() {
        tmux.stop()
        board.stop()
    }

    /// The visible screen, for failure messages.
    var screen: String { ((try? tmux.rows()) ?? []).joined(separator: "\n") }

    func ctl(_ arguments: [String]) throws -> String {
        let result = try board.aidenctl(arguments)
        guard result.status == 0 else { throw IntegrationError("aidenctl \(arguments): \(result.error)") }
        return result.lastLine
    }

    /// Does `after`, waits until the screen shows a card with `badge` whose step line (`label: …`)
    /// shows `step` and, with `drawnAgain`, one more card header than before; then checks it on the
    /// visible screen: each line on one row, no row wider than the window in tmux's cells, the
    /// header exactly the card's width, the title shown whole or cut with `...`.
    @discardableResult
    func expectCard(
        _ badge: String, title: String, step: (label: String, text: String), drawnAgain: Bool = false,
        after action: () throws -> Void = {}
    ) throws -> TerminalCardTests.ShownCard {
        func headers(_ lines: [String]) -> Int {
            lines.filter { line in TerminalCardTests.badges.contains { line.hasSuffix($0) } }.count
        }
        let headersBefore = headers(try tmux.writtenLines())
        try action()
        let context = "\(columns) columns, \(title): \(screen)"
        let prefix = step.label + ": "
        try #require(
            tmux.waitFor { lines in
                guard let card = TerminalCardTests.card(in: lines), card.badge == badge,
                    !drawnAgain || headers(lines) == headersBefore + 1
                else { return false }
                return card.lines.contains {
                    $0.hasPrefix(prefix) && TerminalCardTests.shows(step.text, as: $0.dropFirst(prefix.count))
                }
            }, "no \(badge) card showing \(step.text): \(context)")
        let card = try #require(TerminalCardTests.card(in: try tmux.writtenLines()))
        let measured = try #require(try tmux.stillRows(), "the screen never held still for a read: \(context)")
        let rows = measured.map(\.text)
        let top = rows.count - card.lines.count
        #expect(Array(rows[max(0, top)...]) == card.lines, "each card line on one row: \(context)")
        for row in max(0, top)..<rows.count {
            let cells = measured[row].cells
            #expect(cells <= columns, "row \(row) takes \(cells) cells: \(rows[row]): \(context)")
            if row == top { #expect(cells == width, "the header fills the card: \(context)") }
        }
        let header = card.lines[0].dropLast(badge.count)
        let shownTitle = header[..<(header.lastIndex { $0 != " " }.map(header.index(after:)) ?? header.startIndex)]
        #expect(TerminalCardTests.shows(title, as: shownTitle), "the title shows: \(card.lines[0]): \(context)")
        return card
    }
}
