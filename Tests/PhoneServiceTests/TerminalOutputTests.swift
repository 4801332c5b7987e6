import Foundation
import PhoneCore
import Testing

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
        #expect(narrow.width == 24)
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
}
