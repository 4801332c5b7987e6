import Foundation
import Synchronization
import Testing

@testable import PhoneService

/// The phone's output never blocks whoever writes: a reader that stops reading costs the oldest
/// waiting text, said plainly, never a stalled client.
@Suite struct OutputChannelTests {
    @Test func aReaderThatStopsReadingNeverBlocksTheWriter() throws {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        var notices: [Int32] = [0, 0]
        #expect(pipe(&notices) == 0)
        let channel = OutputChannel(descriptor: descriptors[1], capacity: 4, noticeDescriptor: notices[1])
        let chunk = String(repeating: "x", count: 16 * 1024) + "\n"
        // Four chunks fill the pipe (64 KiB); the channel's writer then blocks inside write(2). Wait
        // until the pipe is full, so that the writer is stuck before the lines below are handed over.
        for _ in 0..<5 { channel.write(chunk) }
        var full = pollfd(fd: descriptors[1], events: Int16(POLLOUT), revents: 0)
        let filling = Date().addingTimeInterval(10)
        while poll(&full, 1, 0) > 0, Date() < filling { usleep(1_000) }
        // Everything from here waits in the backlog of 4, the oldest dropped: these calls return at once.
        let before = Date()
        for index in 0..<20 { channel.write("line \(index)\n") }
        #expect(Date().timeIntervalSince(before) < 5, "write must not wait for the reader")

        let reader = FileHandle(fileDescriptor: descriptors[0], closeOnDealloc: true)
        let collected = Mutex<String?>(nil)
        let readerThread = Thread {
            let data = reader.readDataToEndOfFile()
            collected.withLock { $0 = String(decoding: data, as: UTF8.self) }
        }
        readerThread.start()
        channel.flush(limit: .seconds(20))
        close(descriptors[1])
        let deadline = Date().addingTimeInterval(20)
        while collected.withLock({ $0 == nil }), Date() < deadline { usleep(10_000) }
        let output = collected.withLock { $0 } ?? ""
        close(notices[1])
        let notice = String(
            decoding: FileHandle(fileDescriptor: notices[0], closeOnDealloc: true).readDataToEndOfFile(), as: UTF8.self)
        #expect(notice.hasPrefix("aiden-phone: descriptor \(descriptors[1]) was blocked; "), "the loss is said")
        #expect(notice.hasSuffix(" writes dropped\n"))
        #expect(!output.contains("dropped"), "never in the stream itself, which may be --json")
        #expect(output.contains("line 19\n"), "the newest text is kept")
        #expect(!output.contains("line 0\n"), "the oldest waiting text went first")
        #expect(channel.takeLostOutput(), "the card learns it must start afresh")
        #expect(!channel.takeLostOutput())
    }

    @Test func textIsWrittenInOrderAndFlushWaitsForIt() throws {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let channel = OutputChannel(descriptor: descriptors[1])
        for index in 0..<100 { channel.write("\(index)\n") }
        channel.flush()
        close(descriptors[1])
        let data = FileHandle(fileDescriptor: descriptors[0], closeOnDealloc: true).readDataToEndOfFile()
        #expect(String(decoding: data, as: UTF8.self) == (0..<100).map { "\($0)\n" }.joined())
    }
}
