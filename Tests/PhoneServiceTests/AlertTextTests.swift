import PhoneCore
import Testing

@testable import PhoneService

@Suite struct AlertTextTests {
    @Test func alertWording() {
        #expect(
            AlertText.line(Alert(transition: .connected, connectionID: "usb-1-7"))
                == "Connected to the board (usb-1-7)")
        #expect(
            AlertText.line(Alert(transition: .handoff, requestID: "chat_1", epoch: 1))
                == "Your turn: the task needs you on the phone (chat_1)")
        #expect(
            Set(AlertTransition.allCases.map { AlertText.headline(Alert(transition: $0)) }).count
                == AlertTransition.allCases.count)
    }
}
