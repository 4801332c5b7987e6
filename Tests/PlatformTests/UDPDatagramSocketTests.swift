import NetworkAddress
import Testing

@testable import Platform

@Suite struct UDPDatagramSocketTests {
    @Test func datagramsArriveWholeOnLoopback() throws {
        let receiver = try UDPDatagramSocket(receivingOn: try SocketEndpoint("127.0.0.1:0"))
        let target = try #require(receiver.localEndpoint)
        #expect(target.port != 0)
        let sender = try UDPDatagramSocket(sendingTo: target)
        let envelope: [UInt8] = [1, 4, 0x34, 0x12, 1, 0, 0, 0, 0, 0, 0, 0]
        try sender.send(envelope, to: target).get()
        let received = try #require(receiver.receive(timeoutMilliseconds: 2000))
        #expect(received.bytes == envelope)
        #expect(received.fullLength == 12)
        #expect(received.from?.address.isLoopback == true)
    }

    @Test func oversizedDatagramsReportTheirTrueLength() throws {
        let receiver = try UDPDatagramSocket(receivingOn: try SocketEndpoint("127.0.0.1:0"))
        let target = try #require(receiver.localEndpoint)
        try UDPDatagramSocket(sendingTo: target).send([UInt8](repeating: 7, count: 100), to: target).get()
        let received = try #require(receiver.receive(maxBytes: 16, timeoutMilliseconds: 2000))
        #expect(received.bytes.count == 16)
        #expect(received.fullLength == 100)
    }

    @Test func receiveTimesOutWithNothing() throws {
        let receiver = try UDPDatagramSocket(receivingOn: try SocketEndpoint("127.0.0.1:0"))
        #expect(receiver.receive(timeoutMilliseconds: 20) == nil)
    }

    @Test func bindingATakenPortNamesTheAddress() throws {
        let first = try UDPDatagramSocket(receivingOn: try SocketEndpoint("127.0.0.1:0"))
        let taken = try #require(first.localEndpoint)
        // A second receiver on the same port would split the Wakes between them: refused.
        #expect {
            try UDPDatagramSocket(receivingOn: taken)
        } throws: { error in
            (error as? SocketError)?.description.hasPrefix("bind \(taken):") == true
        }
    }
}
