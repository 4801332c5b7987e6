import Configuration
import Testing

@testable import PhoneService

/// Which interface the phone's requests are bound to: `[board] interface` for a board over a link, none for a
/// board on loopback (development, tests) or with the key empty.
@Suite struct HTTPBoardTransportTests {
    func board(_ url: String, interface: String?) throws -> PhoneConfiguration.Board {
        var board = PhoneConfiguration.defaults.board
        board.url = try BoardURL(url)
        board.interface = interface
        return board
    }

    @Test func aBoardOverTheLinkIsReachedThroughItsInterfaceAlone() throws {
        #expect(HTTPBoardTransport.localEnd(for: PhoneConfiguration.defaults.board) == .interface("aidenboard0"))
        #expect(
            HTTPBoardTransport.localEnd(for: try board("http://192.168.42.1:8080", interface: "usb0"))
                == .interface("usb0"))
        #expect(HTTPBoardTransport(board: PhoneConfiguration.defaults.board).localEnd == .interface("aidenboard0"))
    }

    @Test func loopbackAndAnEmptyKeyBindNothing() throws {
        #expect(
            HTTPBoardTransport.localEnd(for: try board("http://127.0.0.1:8080", interface: "aidenboard0")) == nil)
        #expect(
            HTTPBoardTransport.localEnd(for: try board("http://localhost:8080", interface: "aidenboard0")) == nil)
        #expect(HTTPBoardTransport.localEnd(for: try board("http://[::1]:8080", interface: "aidenboard0")) == nil)
        #expect(HTTPBoardTransport.localEnd(for: try board("http://192.168.42.1:8080", interface: nil)) == nil)
    }
}
