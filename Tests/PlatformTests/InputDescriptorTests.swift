import Glibc
import Testing

@testable import Platform

@Suite struct InputDescriptorTests {
    @Test func readsTellBytesFromNothingYetFromTheEnd() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        let input = InputDescriptor(ends[0])
        defer { input.close() }
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(input.read(into: &buffer) == .nothing)
        #expect(OutputDescriptor(ends[1]).write("abc"))
        #expect(input.read(into: &buffer) == .bytes(3))
        #expect(buffer.prefix(3) == Array("abc".utf8)[...])
        close(ends[1])
        #expect(input.read(into: &buffer) == .end)
    }

    @Test func readAllStopsAtTheEndOrOnceTheLimitIsReached() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        let input = InputDescriptor(ends[0])
        defer { input.close() }
        #expect(OutputDescriptor(ends[1]).write([UInt8](repeating: 1, count: 10)[...]))
        close(ends[1])
        #expect(input.readAll(limit: 1 << 20) == [UInt8](repeating: 1, count: 10))
    }
}
