import Foundation
import PhoneCore
import Platform
import Synchronization
import Testing
import WireFormat

@testable import PhoneService

@Suite struct TerminalOutputTests {
    @Test func theScreenRedrawsTheCardInPlace() {
        var screen = TerminalScreen()
        #expect(screen.draw(["A", "B"]) == "A\nB\n", "nothing to erase the first time")
        #expect(screen.draw(["C", "D", "E"]) == "\r\u{1B}[2A\u{1B}[JC\nD\nE\n")
        #expect(screen.cardRows == 3)
        #expect(screen.printAbove(">> alert") == "\r\u{1B}[3A\u{1B}[J>> alert\nC\nD\nE\n")
        #expect(screen.cardRows == 3, "the printed line scrolls away above the card")
    }

    @Test func modeFollowsTheTerminalAndNoColor() {
        let pipeChannel = OutputChannel(descriptor: -1)
        let plain = TerminalOutput.Mode.detect(channel: pipeChannel, environment: ["COLUMNS": "200"])
        #expect(plain == TerminalOutput.Mode(inPlace: false, color: false, width: 60))
        let narrow = TerminalOutput.Mode.detect(channel: pipeChannel, environment: ["COLUMNS": "10"])
        #expect(narrow.width == 20, "as narrow as the card gets")
    }

    /// On a real terminal (a pseudo-terminal here) the card is drawn in place, unless the terminal
    /// says it cannot move the cursor.
    @Test func aDumbTerminalGetsPlainLines() throws {
        // posix_openpt and friends do not import; these are their ioctls (asm-generic values, the same
        // on x86-64 and arm64): TIOCSPTLCK unlocks the pair, TIOCGPTN names the terminal end.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        defer { close(master) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        #expect(ioctl(master, 0x4004_5431, &unlock) == 0)
        #expect(ioctl(master, 0x8004_5430, &number) == 0)
        let terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        try #require(terminal >= 0)
        defer { close(terminal) }
        let channel = OutputChannel(descriptor: terminal)
        let xterm = TerminalOutput.Mode.detect(channel: channel, environment: ["TERM": "xterm-256color"])
        #expect(xterm.inPlace && xterm.color)
        let dumb = TerminalOutput.Mode.detect(channel: channel, environment: ["TERM": "dumb"])
        #expect(!dumb.inPlace && !dumb.color)
    }

    /// SIGWINCH: the card is drawn again at the new width, on fresh lines; the same width again is
    /// not a change, and without a card there is nothing to draw.
    @Test func aResizeRedrawsTheCardAtTheNewWidth() throws {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let output = TerminalOutput(
            channel: OutputChannel(descriptor: descriptors[1]),
            mode: .init(inPlace: true, color: false, width: 60))
        output.resize(columns: 40)  // no card yet: nothing drawn
        let card = Card(state: .standby, link: LinkState(usb: .unmonitored, wake: .connected))
        output.emit(.card(card), at: Date())
        output.resize(columns: 30)
        output.resize(columns: 30)
        output.flush()
        close(descriptors[1])
        let text = String(
            decoding: FileHandle(fileDescriptor: descriptors[0], closeOnDealloc: true).readDataToEndOfFile(),
            as: UTF8.self)
        let at40 = CardTextRenderer(options: .init(width: 40, color: false)).render(card)
        let at30 = CardTextRenderer(options: .init(width: 30, color: false)).render(card)
        #expect(text == at40 + "\n" + at30 + "\n", "drawn at 40, then again at 30 with nothing erased")
    }

    /// The tool line's time moves on a card that does not change: drawn again in place when a line changes, and
    /// not at all when none does.
    @Test func aRedrawMovesTheToolLinesTimeOnAndNothingElse() throws {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let output = TerminalOutput(
            channel: OutputChannel(descriptor: descriptors[1]), mode: .init(inPlace: true, color: false, width: 48))
        let task = SnapshotView(
            requestID: "chat_1", status: .known(.running), taskTitle: "Open Settings", currentStep: "Reading")
        var running = task
        running.toolStatus = "Taking a screenshot"
        running.toolStartedAt = "2026-06-12T07:00:00Z"
        let card = Card(state: .running, snapshot: running, link: LinkState(usb: .unmonitored, wake: .connected))
        let start = try Date("2026-06-12T07:00:05Z", strategy: .iso8601)
        output.emit(.card(card), at: start)
        output.redraw(at: start.addingTimeInterval(0.4))  // the same second: nothing to draw
        output.redraw(at: start.addingTimeInterval(60))
        output.flush()
        close(descriptors[1])
        let data = FileHandle(fileDescriptor: descriptors[0], closeOnDealloc: true).readDataToEndOfFile()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.components(separatedBy: "Tool: Taking a screenshot").count == 3, "drawn twice: \(text)")
        #expect(text.contains("Tool: Taking a screenshot · 5s"))
        #expect(text.contains("Tool: Taking a screenshot · 1m 05s"))
    }

    @Test func withoutATerminalEachChangedCardIsPrintedWholeWithABlankLine() throws {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let output = TerminalOutput(
            channel: OutputChannel(descriptor: descriptors[1]),
            mode: .init(inPlace: false, color: false, width: 40))
        let link = LinkState(usb: .unmonitored, wake: .connected)
        let standby = Card(state: .standby, link: link)
        output.emit(.card(standby), at: Date())
        output.emit(.card(standby), at: Date())
        output.emit(.error(kind: "unreachable", message: "x"), at: Date())
        output.deliver(Alert(transition: .completed, requestID: "chat_1"))
        output.flush()
        close(descriptors[1])
        let data = FileHandle(fileDescriptor: descriptors[0], closeOnDealloc: true).readDataToEndOfFile()
        let text = String(decoding: data, as: UTF8.self)
        let expectedCard = CardTextRenderer(options: .init(width: 40, color: false)).render(standby)
        #expect(text == expectedCard + "\n\n>> Task completed (chat_1)\n\n")
        #expect(!text.contains("\u{1B}"), "no escape sequences off a terminal")
    }

    /// Above the card on a terminal: the alert in bold, a log line as the logger escaped it, and no
    /// escape sequence, line break or bidi control of the board's making among them.
    @Test func boardTextAboveTheCardCannotDriveTheTerminal() throws {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let output = TerminalOutput(
            channel: OutputChannel(descriptor: descriptors[1]),
            mode: .init(inPlace: true, color: true, width: 40))
        let logger = Logger(component: "aiden-phone") { _, line in output.printAbove(line) }
        output.deliver(
            Alert(transition: .failed, requestID: "chat_1", title: "T\u{1B}[2J\u{202E}", error: "a\nb\u{9B}c"))
        logger.warning("board answered HTTP 500: \u{1B}]0;owned\u{07}\n<3>forged")
        output.flush()
        close(descriptors[1])
        let data = FileHandle(fileDescriptor: descriptors[0], closeOnDealloc: true).readDataToEndOfFile()
        let text = String(decoding: data, as: UTF8.self)
        #expect(
            text
                == "\u{07}\u{1B}[1m>> T [2J: Failed: a b c (chat_1)\u{1B}[0m\n"
                + #"aiden-phone: board answered HTTP 500: \u{1b}]0;owned\u{7}\n<3>forged"# + "\n")
    }

    /// How the board took a key's answer is a line above the card (on a pipe, a line and a blank one).
    @Test func anAnswersOutcomeIsALineAboveTheCard() throws {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let output = TerminalOutput(
            channel: OutputChannel(descriptor: descriptors[1]),
            mode: .init(inPlace: false, color: false, width: 40))
        let refused = AnswerOutcome(
            answer: .stop, requestID: "chat_1", answerID: "ans-1", title: "Open Settings",
            result: .refused(.httpStatus(409, message: "the task has ended"), code: "task_ended"))
        output.emit(.answered(refused), at: Date())
        output.flush()
        close(descriptors[1])
        let data = FileHandle(fileDescriptor: descriptors[0], closeOnDealloc: true).readDataToEndOfFile()
        #expect(
            String(decoding: data, as: UTF8.self)
                == ">> Could not stop “Open Settings” (chat_1): board answered HTTP 409: task_ended: the task has ended\n\n"
        )
    }

    /// The key reader on a pseudo-terminal: single keys arrive without Enter, nothing is echoed, and the
    /// terminal's mode is put back afterwards.
    @Test func keysAreReadOneByOneAndTheModeIsRestored() throws {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        defer { close(master) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        #expect(ioctl(master, 0x4004_5431, &unlock) == 0)
        #expect(ioctl(master, 0x8004_5430, &number) == 0)
        let terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        try #require(terminal >= 0)
        defer { close(terminal) }
        var before = termios()
        #expect(tcgetattr(terminal, &before) == 0)
        #expect(before.c_lflag & tcflag_t(ICANON) != 0)
        let reader = TerminalKeyReader(descriptor: terminal)
        let keys = Mutex<[UInt8]>([])
        let arrived = DispatchSemaphore(value: 0)
        #expect(
            reader.start { byte in
                keys.withLock { $0.append(byte) }
                arrived.signal()
            })
        var during = termios()
        #expect(tcgetattr(terminal, &during) == 0)
        #expect(during.c_lflag & tcflag_t(ICANON | ECHO) == 0)
        #expect(write(master, "sy", 2) == 2)  // no newline: canonical mode would hold these back
        #expect(arrived.wait(timeout: .now() + 10) == .success)
        #expect(arrived.wait(timeout: .now() + 10) == .success)
        #expect(keys.withLock { $0 } == Array("sy".utf8))
        reader.restore()
        var after = termios()
        #expect(tcgetattr(terminal, &after) == 0)
        #expect(after.c_lflag == before.c_lflag)
        // A pipe is no terminal: nothing is read, nothing changed.
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        defer { close(descriptors[0]); close(descriptors[1]) }
        #expect(!TerminalKeyReader(descriptor: descriptors[0]).start { _ in })
    }
}
