import FoundationEssentials
import Testing
import WakeProtocol
import WireFormat

@testable import PhoneCore

@Suite struct CardTextRendererTests {
    static func card(_ answer: CurrentAnswer?, link: LinkState = Fixtures.usbUp, problem: BoardProblem? = nil) -> Card {
        Card.derive(link: link, answer: answer, problem: problem)
    }

    static var longError: SnapshotView {
        Fixtures.ended(
            .failed,
            error: "The Settings app stopped responding while the agent was typing the Wi-Fi "
                + "password, and the retry budget of three attempts is spent")
    }

    static var hostileTitle: SnapshotView {
        var snapshot = Fixtures.running
        snapshot.taskTitle = "Evil\u{1B}[2J\ntitle"
        snapshot.currentStep = "tab\there"
        return snapshot
    }

    /// (name, card, width): every state, plus the problem, wrapping and truncation variants.
    static let cases: [(String, Card, Int)] = [
        ("standby", card(.notFound), 48),
        ("running", card(.snapshot(Fixtures.running)), 48),
        ("needs_app", card(.snapshot(Fixtures.needsApp)), 48),
        ("handoff", card(.snapshot(Fixtures.handoff)), 48),
        ("completed", card(.snapshot(Fixtures.ended(.completed))), 48),
        ("failed", card(.snapshot(Fixtures.ended(.failed, error: "Settings crashed"))), 48),
        ("canceled", card(.snapshot(Fixtures.ended(.canceled))), 48),
        ("disconnected", card(nil, link: Fixtures.usbDown), 48),
        ("waiting", card(nil, link: Fixtures.loopback), 48),
        ("forbidden", card(nil, problem: .forbidden(message: nil)), 48),
        ("unreachable", card(.snapshot(Fixtures.running), problem: .unreachable(detail: "connection refused")), 48),
        (
            "malformed",
            card(
                .notFound,
                problem: .malformed(
                    BoardAnswerError(kind: .missingField, field: "live_activity.request_id", message: "missing"))), 48
        ),
        ("failed_without_error", card(.snapshot(Fixtures.ended(.failed))), 48),
        ("failed_long_error", card(.snapshot(longError)), 48),
        ("narrow", card(.snapshot(Fixtures.handoff)), 24),
        ("hostile", card(.snapshot(hostileTitle)), 48),
    ]
}

extension CardTextRendererTests {
    /// name → (without color, with color). Regenerate by eye, never blindly: these are the spec.
    static let goldens: [String: (plain: String, color: String)] = [
        "standby": (
            """
            Aiden                                  [STANDBY]
            No active task.
            USB: up | Wake: connected
            """,
            """
            Aiden                                  \u{1B}[1;36m[STANDBY]\u{1B}[0m
            No active task.
            \u{1B}[2mUSB: up | Wake: connected\u{1B}[0m
            """
        ),
        "running": (
            """
            Open Settings                          [RUNNING]
            Step: Checking the current screen
            Phase: observing
            [######........................]  21%
            USB: up | Wake: connected
            """,
            """
            Open Settings                          \u{1B}[1;34m[RUNNING]\u{1B}[0m
            Step: Checking the current screen
            Phase: observing
            [######........................]  21%
            \u{1B}[2mUSB: up | Wake: connected\u{1B}[0m
            """
        ),
        "needs_app": (
            """
            Open Settings                        [NEEDS APP]
            Bring the companion app to the foreground.
            Step: Waiting for the Aiden app
            Phase: waiting app
            USB: up | Wake: connected
            """,
            """
            Open Settings                        \u{1B}[1;33m[NEEDS APP]\u{1B}[0m
            Bring the companion app to the foreground.
            Step: Waiting for the Aiden app
            Phase: waiting app
            \u{1B}[2mUSB: up | Wake: connected\u{1B}[0m
            """
        ),
        "handoff": (
            """
            Open Settings                        [YOUR TURN]
            Your action is needed on the phone.
            Step: Enter the Wi-Fi password
            Action: request user input
            Target: Password field
            App: Settings
            [###############...............]  50%
            USB: up | Wake: connected
            """,
            """
            Open Settings                        \u{1B}[1;35m[YOUR TURN]\u{1B}[0m
            Your action is needed on the phone.
            Step: Enter the Wi-Fi password
            Action: request user input
            Target: Password field
            App: Settings
            [###############...............]  50%
            \u{1B}[2mUSB: up | Wake: connected\u{1B}[0m
            """
        ),
        "completed": (
            """
            Open Settings                        [COMPLETED]
            Completed.
            Last step: Opened Settings
            USB: up | Wake: connected
            """,
            """
            Open Settings                        \u{1B}[1;32m[COMPLETED]\u{1B}[0m
            Completed.
            Last step: Opened Settings
            \u{1B}[2mUSB: up | Wake: connected\u{1B}[0m
            """
        ),
        "failed": (
            """
            Open Settings                           [FAILED]
            Failed: Settings crashed
            Last step: Opened Settings
            USB: up | Wake: connected
            """,
            """
            Open Settings                           \u{1B}[1;31m[FAILED]\u{1B}[0m
            Failed: Settings crashed
            Last step: Opened Settings
            \u{1B}[2mUSB: up | Wake: connected\u{1B}[0m
            """
        ),
        "canceled": (
            """
            Open Settings                         [CANCELED]
            Canceled.
            Last step: Opened Settings
            USB: up | Wake: connected
            """,
            """
            Open Settings                         \u{1B}[1;90m[CANCELED]\u{1B}[0m
            Canceled.
            Last step: Opened Settings
            \u{1B}[2mUSB: up | Wake: connected\u{1B}[0m
            """
        ),
        "disconnected": (
            """
            Aiden                             [DISCONNECTED]
            USB link to the board is down.
            USB: down | Wake: connected
            """,
            """
            Aiden                             \u{1B}[1;90m[DISCONNECTED]\u{1B}[0m
            USB link to the board is down.
            \u{1B}[2mUSB: down | Wake: connected\u{1B}[0m
            """
        ),
        "waiting": (
            """
            Aiden                             [DISCONNECTED]
            Waiting for the board...
            USB: not monitored | Wake: connected
            """,
            """
            Aiden                             \u{1B}[1;90m[DISCONNECTED]\u{1B}[0m
            Waiting for the board...
            \u{1B}[2mUSB: not monitored | Wake: connected\u{1B}[0m
            """
        ),
        "forbidden": (
            """
            Aiden                             [DISCONNECTED]
            ! board answered 403 (forbidden): this host is
              not on the board's USB link
            USB: up | Wake: connected
            """,
            """
            Aiden                             \u{1B}[1;90m[DISCONNECTED]\u{1B}[0m
            \u{1B}[1;31m! board answered 403 (forbidden): this host is\u{1B}[0m
            \u{1B}[1;31m  not on the board's USB link\u{1B}[0m
            \u{1B}[2mUSB: up | Wake: connected\u{1B}[0m
            """
        ),
        "unreachable": (
            """
            Open Settings                          [RUNNING]
            Step: Checking the current screen
            Phase: observing
            [######........................]  21%
            ! board unreachable: connection refused
            USB: up | Wake: connected
            """,
            """
            Open Settings                          \u{1B}[1;34m[RUNNING]\u{1B}[0m
            Step: Checking the current screen
            Phase: observing
            [######........................]  21%
            \u{1B}[1;31m! board unreachable: connection refused\u{1B}[0m
            \u{1B}[2mUSB: up | Wake: connected\u{1B}[0m
            """
        ),
        "malformed": (
            """
            Aiden                                  [STANDBY]
            No active task.
            ! malformed answer from the board:
              live_activity.request_id: missing
            USB: up | Wake: connected
            """,
            """
            Aiden                                  \u{1B}[1;36m[STANDBY]\u{1B}[0m
            No active task.
            \u{1B}[1;31m! malformed answer from the board:\u{1B}[0m
            \u{1B}[1;31m  live_activity.request_id: missing\u{1B}[0m
            \u{1B}[2mUSB: up | Wake: connected\u{1B}[0m
            """
        ),
        "failed_without_error": (
            """
            Open Settings                           [FAILED]
            Failed.
            Last step: Opened Settings
            USB: up | Wake: connected
            """,
            """
            Open Settings                           \u{1B}[1;31m[FAILED]\u{1B}[0m
            Failed.
            Last step: Opened Settings
            \u{1B}[2mUSB: up | Wake: connected\u{1B}[0m
            """
        ),
        "failed_long_error": (
            """
            Open Settings                           [FAILED]
            Failed: The Settings app stopped responding
              while the agent was typing the Wi-Fi password,
              and the retry budget of three attempts is
              spent
            Last step: Opened Settings
            USB: up | Wake: connected
            """,
            """
            Open Settings                           \u{1B}[1;31m[FAILED]\u{1B}[0m
            Failed: The Settings app stopped responding
              while the agent was typing the Wi-Fi password,
              and the retry budget of three attempts is
              spent
            Last step: Opened Settings
            \u{1B}[2mUSB: up | Wake: connected\u{1B}[0m
            """
        ),
        "narrow": (
            """
            Open Sett... [YOUR TURN]
            Your action is needed...
            Step: Enter the Wi-Fi...
            Action: request user ...
            Target: Password field
            App: Settings
            [#########........]  50%
            USB: up | Wake: conne...
            """,
            """
            Open Sett... \u{1B}[1;35m[YOUR TURN]\u{1B}[0m
            Your action is needed...
            Step: Enter the Wi-Fi...
            Action: request user ...
            Target: Password field
            App: Settings
            [#########........]  50%
            \u{1B}[2mUSB: up | Wake: conne...\u{1B}[0m
            """
        ),
        "hostile": (
            """
            Evil [2J title                         [RUNNING]
            Step: tab here
            Phase: observing
            [######........................]  21%
            USB: up | Wake: connected
            """,
            """
            Evil [2J title                         \u{1B}[1;34m[RUNNING]\u{1B}[0m
            Step: tab here
            Phase: observing
            [######........................]  21%
            \u{1B}[2mUSB: up | Wake: connected\u{1B}[0m
            """
        ),
    ]

    @Test(arguments: cases.map { $0.0 })
    func rendersTheGoldenText(name: String) throws {
        let entry = try #require(Self.cases.first { $0.0 == name })
        let golden = try #require(Self.goldens[name])
        let plain = CardTextRenderer(options: .init(width: entry.2, color: false)).render(entry.1)
        let color = CardTextRenderer(options: .init(width: entry.2, color: true)).render(entry.1)
        #expect(plain == golden.plain)
        #expect(color == golden.color)
    }
}

extension CardTextRendererTests {
    @Test(arguments: [24, 40, 80, 200])
    func noLineIsWiderThanTheWidth(width: Int) {
        let renderer = CardTextRenderer(options: .init(width: width))
        for (name, card, _) in Self.cases {
            for line in renderer.lines(for: card) {
                #expect(line.count <= width, "\(name): \(line)")
            }
        }
    }

    /// The tool line and the time since the board stamped it, at the phone's clock as the card is drawn.
    @Test func theToolLineShowsItsElapsedTime() throws {
        var task = Fixtures.running
        task.toolStatus = "Taking a screenshot"
        task.toolStartedAt = "2026-06-12T07:00:02.500Z"
        let card = Self.card(.snapshot(task))
        let renderer = CardTextRenderer(options: .init(width: 48))
        let at = { (text: String) in try Date(text, strategy: .iso8601) }
        #expect(
            renderer.lines(for: card, at: try at("2026-06-12T07:00:44Z")).contains("Tool: Taking a screenshot · 41s"))
        #expect(
            renderer.lines(for: card, at: try at("2026-06-12T07:01:08Z")).contains("Tool: Taking a screenshot · 1m 05s")
        )
        #expect(
            renderer.lines(for: card, at: try at("2026-06-12T09:03:03Z")).contains("Tool: Taking a screenshot · 2h 03m")
        )
        // A stamp ahead of the phone's clock, or no clock: the line without a time.
        #expect(renderer.lines(for: card, at: try at("2026-06-12T07:00:00Z")).contains("Tool: Taking a screenshot"))
        #expect(renderer.lines(for: card).contains("Tool: Taking a screenshot"))
        // Ended: no tool line.
        var ended = Fixtures.ended(.completed)
        ended.toolStatus = "Taking a screenshot"
        #expect(!renderer.render(Self.card(.snapshot(ended))).contains("Tool:"))
    }

    @Test func theWidthHasAFloor() {
        #expect(CardTextRenderer.Options(width: 3).width == CardTextRenderer.Options.minimumWidth)
    }

    /// Bidi overrides and isolates, zero-width and other format characters are dropped; line and
    /// paragraph separators become spaces like any control character.
    @Test(arguments: [
        ("pay\u{202E}lanoitan\u{202C}", "paylanoitan"), ("\u{2066}abc\u{2069}", "abc"),
        ("a\u{200B}b\u{00AD}c\u{FEFF}", "abc"), ("one\u{2028}two\u{2029}three", "one two three"),
        ("tab\there\u{1B}[2J", "tab here [2J"), ("Café 設定 ✅", "Café 設定 ✅"),
        // A zero-width joiner stays only inside an emoji sequence; tag characters (which can hide
        // text) go, leaving the black flag of a subdivision flag.
        ("👨\u{200D}👩\u{200D}👧", "👨\u{200D}👩\u{200D}👧"), ("👩🏽\u{200D}💻", "👩🏽\u{200D}💻"),
        ("a\u{200D}b", "ab"), ("\u{200D}", ""), ("👨\u{200D}", "👨"), ("👨\u{200D}b", "👨b"),
        ("👨\u{200B}\u{200D}👩", "👨\u{200D}👩"), ("🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", "🏴"),
    ])
    func formatAndBidiCharactersAreStripped(text: String, expected: String) {
        #expect(BoardText.clean(text).unicodeScalars.elementsEqual(expected.unicodeScalars))
    }

    @Test func boardTextCannotDriveTheTerminal() {
        let plain = CardTextRenderer().render(Self.card(.snapshot(Self.hostileTitle)))
        #expect(!plain.contains("\u{1B}"))
        #expect(!plain.contains("\t"))
        #expect(plain.split(separator: "\n").count == 5, "no line break of the board's text reaches the terminal")
    }

    /// `[` + filled + empty + `]` and the percent, for the 30-cell bar of a 60-column card.
    static func bar(_ filled: Int, _ percent: String) -> String {
        let cells = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
        return "[" + cells + "] " + percent
    }

    static let progressRows: [(Double, String)] = [
        (-0.5, bar(0, "  0%")), (0.0, bar(0, "  0%")), (0.29, bar(9, " 29%")), (1.0, bar(30, "100%")),
        (7.0, bar(30, "100%")),
    ]

    @Test(arguments: progressRows)
    func progressIsClampedAndRounded(progress: Double, bar: String) {
        var snapshot = Fixtures.running
        snapshot.progress = progress
        let lines = CardTextRenderer().lines(for: Self.card(.snapshot(snapshot)))
        #expect(lines.contains(bar))
    }

    @Test func progressIsHiddenUnlessTheTaskShowsIt() {
        var snapshot = Fixtures.running
        snapshot.showsProgress = false
        let text = CardTextRenderer().render(Self.card(.snapshot(snapshot)))
        #expect(!text.contains("%"))
        snapshot.showsProgress = true
        snapshot.canStop = false
        let noStop = CardTextRenderer().render(Self.card(.snapshot(snapshot)))
        #expect(noStop.contains("21%"))
        #expect(!noStop.contains("Stop"))
    }

    @Test func aStaleTaskSaysItsAgentWentSilent() {
        var snapshot = Fixtures.running
        #expect(!CardTextRenderer().render(Self.card(.snapshot(snapshot))).contains("No news"))
        snapshot.staleSince = "2026-06-12T07:05:00Z"
        snapshot.staleAfterSeconds = 300
        let lines = CardTextRenderer().lines(for: Self.card(.snapshot(snapshot)))
        #expect(lines[1] == "No news from the agent for 5+ min.", "\(lines)")
        snapshot.staleAfterSeconds = 45
        #expect(CardTextRenderer().render(Self.card(.snapshot(snapshot))).contains("No news from the agent for 45+ s."))
        snapshot.staleAfterSeconds = nil
        #expect(CardTextRenderer().render(Self.card(.snapshot(snapshot))).contains("No news from the agent."))
    }
}

/// Wide and zero-width text: no line is wider than the card in terminal cells, the header fills
/// it exactly, and every cut falls between whole characters.
extension CardTextRendererTests {
    static func running(title: String, step: String) -> Card {
        var snapshot = Fixtures.running
        snapshot.taskTitle = title
        snapshot.currentStep = step
        return card(.snapshot(snapshot))
    }

    /// The card's lines without the SGR colors around them.
    static func uncolored(_ line: String) -> String {
        var text = ""
        var escape = false
        for character in line {
            if character == "\u{1B}" {
                escape = true
            } else if escape {
                if character == "m" { escape = false }
            } else {
                text.append(character)
            }
        }
        return text
    }

    static let wideGoldens: [(String, String, Int, String)] = [
        (
            "設定を開いてネットワークに接続する", "パスワードを入力しています", 40,
            """
            設定を開いてネットワークに...  [RUNNING]
            Step: パスワードを入力しています
            Phase: observing
            [######........................]  21%
            USB: up | Wake: connected
            """
        ),
        (
            // 15 cells for the title before `...`: the eighth ideograph would take the 15th and
            // 16th, so it is left out and a space fills the 15th. The step fills its 28 cells.
            "設定を開いてネットワークに接続する", "👨\u{200D}👩\u{200D}👧 家族の写真を共有 ✅", 28,
            """
            設定を開いてネ...  [RUNNING]
            Step: 👨\u{200D}👩\u{200D}👧 家族の写真を共有 ✅
            Phase: observing
            [####.................]  21%
            USB: up | Wake: connected
            """
        ),
        (
            "Café 🇯🇵 e\u{0301}te\u{0301} 한국어", "1\u{FE0F}\u{20E3} Ｗｉ－Ｆｉ ❤\u{FE0F}", 48,
            """
            Café 🇯🇵 e\u{0301}te\u{0301} 한국어                     [RUNNING]
            Step: 1\u{FE0F}\u{20E3} Ｗｉ－Ｆｉ ❤\u{FE0F}
            Phase: observing
            [######........................]  21%
            USB: up | Wake: connected
            """
        ),
    ]

    @Test(arguments: 0..<wideGoldens.count)
    func wideTextIsCutAndPaddedInCells(index: Int) {
        let (title, step, width, golden) = Self.wideGoldens[index]
        let lines = CardTextRenderer(options: .init(width: width)).lines(for: Self.running(title: title, step: step))
        #expect(lines.joined(separator: "\n") == golden)
        #expect(TerminalCellWidth.of(lines[0]) == width, "the badge ends the line")
    }

    /// A failure text in a script without spaces is broken between characters, not cut after a line.
    @Test func aLongErrorWithoutSpacesWrapsBetweenCharacters() {
        let error = "設定アプリが応答しなくなりました。再試行の回数を使い切りました"
        let lines = CardTextRenderer(options: .init(width: 24)).lines(
            for: Self.card(.snapshot(Fixtures.ended(.failed, error: error))))
        #expect(
            Array(lines[1...3]) == [
                "Failed: 設定アプリが応答",
                "  しなくなりました。再試",
                "  行の回数を使い切りまし",
            ])
        #expect(lines[4] == "  た")
        let shown = lines[1...4].map { $0.replacing("Failed: ", with: "").trimmingPrefix("  ") }.joined()
        #expect(shown == error, "nothing of the error is lost")
    }

    /// Board text drawn from CJK, Hangul, fullwidth forms, emoji (with and without VS16, ZWJ
    /// sequences, flags, keycaps, skin tones), combining and zero-width characters, bidi controls,
    /// control characters and ASCII, at every width from 20 to 200.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func noLineIsWiderThanTheCardForAnyText(seed: UInt64) {
        let pieces: [String] = [
            "設", "定", "を", "開", "く", "한", "국", "Ａ", "１", "！", "🚀", "✅", "❤", "❤\u{FE0F}",
            "👨\u{200D}👩\u{200D}👧", "👩🏽\u{200D}💻", "👍🏽", "🇯🇵", "🇯", "1\u{FE0F}\u{20E3}", "e\u{0301}",
            "\u{0301}", "\u{200D}", "\u{200B}", "\u{202E}", "\u{2066}", "\u{1B}[2J", "\t", "\n", " ", "  ", "a",
            "Wi-Fi", "Settings", "ｶ", "\u{3000}", "\u{1100}\u{1161}\u{11A8}", "कि",
        ]
        var random = SplitMix64(seed: seed)
        func text() -> String {
            (0..<Int.random(in: 0...40, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
        }
        for width in 20...200 {
            var snapshot = Fixtures.handoff
            snapshot.taskTitle = text()
            snapshot.currentStep = text()
            snapshot.currentTarget = text()
            snapshot.currentApp = text()
            var failed = Fixtures.ended(.failed, error: text())
            failed.taskTitle = snapshot.taskTitle
            for card in [Self.card(.snapshot(snapshot)), Self.card(.snapshot(failed))] {
                for color in [false, true] {
                    let lines = CardTextRenderer(options: .init(width: width, color: color)).lines(for: card)
                        .map(Self.uncolored)
                    for line in lines {
                        #expect(TerminalCellWidth.of(line) <= width, "width \(width), seed \(seed): \(line)")
                    }
                    #expect(TerminalCellWidth.of(lines[0]) == width, "width \(width), seed \(seed): \(lines[0])")
                    let title = Array(BoardText.clean(snapshot.taskTitle ?? ""))
                    let header = lines[0][..<(lines[0].lastIndex(of: "[") ?? lines[0].endIndex)]
                    var shown = Array(header)
                    while shown.last == " " { shown.removeLast() }
                    let cut = shown.suffix(3) == [".", ".", "."] ? Array(shown.dropLast(3)) : shown
                    #expect(
                        title.allSatisfy { $0 == " " } || title.starts(with: shown) || title.starts(with: cut),
                        "the title is cut between whole characters: \(lines[0])")
                }
            }
        }
    }
}
