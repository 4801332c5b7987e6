import Glibc
import Testing

@testable import Platform

/// Writes through a pipe this test reads.
@Suite struct OutputDescriptorTests {
    func withPipe(_ body: (_ read: Int32, _ write: Int32) throws -> Void) throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        try body(ends[0], ends[1])
    }

    func readAll(_ fd: Int32, count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < count {
            let got = read(fd, &buffer, buffer.count)
            guard got > 0 else { break }
            bytes += buffer[..<got]
        }
        return bytes
    }

    @Test func textArrivesWhole() throws {
        try withPipe { readEnd, writeEnd in
            #expect(OutputDescriptor(writeEnd).write("héllo\n"))
            #expect(readAll(readEnd, count: 7) == Array("héllo\n".utf8))
        }
    }

    @Test func aNonBlockingDescriptorIsWaitedForNotCutShort() throws {
        try withPipe { readEnd, writeEnd in
            _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
            // More than a pipe holds (64 KiB): the writer must wait for the reader, never drop the rest.
            let bytes = [UInt8](repeating: 7, count: 200_000)
            let reader = JoinableThread.start { _ = readAll(readEnd, count: bytes.count) }
            #expect(OutputDescriptor(writeEnd).write(bytes[...]))
            reader?.join()
        }
    }

    @Test func aReaderThatWentAwayIsAFailedWrite() throws {
        signal(SIGPIPE, SIG_IGN)
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        close(ends[0])
        defer { close(ends[1]) }
        #expect(!OutputDescriptor(ends[1]).write("lost"))
    }

    @Test func aPipeIsNoTerminal() throws {
        try withPipe { _, writeEnd in
            #expect(!OutputDescriptor(writeEnd).isTerminal)
            #expect(OutputDescriptor(writeEnd).terminalColumns == nil)
        }
    }
}
