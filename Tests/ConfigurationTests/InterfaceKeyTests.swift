import Testing

@testable import Configuration

/// `[http] interface` on the board and `[board] interface` on the phone host: the ECM link's interface by name.
@Suite struct InterfaceKeyTests {
    @Test func theDefaultsNameTheInterfacesUdevGivesTheLink() {
        #expect(BoardConfiguration.defaults.http.interface == "aiden0")
        #expect(PhoneConfiguration.defaults.board.interface == "aidenboard0")
    }

    @Test(arguments: ["eth0", "aiden0", "enx0a1b2c3d4e5f", "a", "usb-0.1_x"])
    func namesLinuxTakesAreAccepted(name: String) throws {
        #expect(try parseBoard("[http]\ninterface = \"\(name)\"\n").get().http.interface == name)
        #expect(try parsePhone("[board]\ninterface = \"\(name)\"\n").get().board.interface == name)
    }

    @Test func emptyMeansAnyInterface() throws {
        #expect(try parseBoard("[http]\ninterface = \"\"\n").get().http.interface == nil)
        #expect(try parsePhone("[board]\ninterface = \"\"\n").get().board.interface == nil)
    }

    @Test(arguments: [
        "enx0a1b2c3d4e5f6", ".", "..", "eth/0", "eth:0", "eth 0", "eth\t0", "éth0",
    ])
    func namesLinuxRefusesAreErrors(name: String) throws {
        let text = "[http]\ninterface = \"\(name)\"\n"
        guard case let .failure(error) = parseBoard(text) else {
            Issue.record("\(name) was accepted")
            return
        }
        #expect(error.kind == .invalidValue)
        #expect(error.key == "http.interface")
        #expect(
            error.message
                == "\"\(name)\" is not an interface name (at most 15 printable ASCII characters, no '/', ':' or space)")
    }

    @Test func aWrongTypeSaysWhatIsExpected() {
        guard case let .failure(error) = parsePhone("[board]\ninterface = 3\n") else {
            Issue.record("an integer was accepted")
            return
        }
        #expect(error.description.hasPrefix("phone.toml:2: board.interface: expected a string"))
    }
}
