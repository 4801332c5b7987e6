import BoardAPI
import Testing

@testable import HTTPServer

/// What the context owes for answers given later, without a daemon: a request libmicrohttpd ends before its
/// answer is queued (the client hung up during a long-poll) is owed no more, and only that request.
@Suite struct DeferredResponseLedgerTests {
    /// A stand-in for a connection's address: never dereferenced, since nothing here suspends or resumes.
    static var connection: OpaquePointer { OpaquePointer(bitPattern: 0x1000)! }

    static func context() -> ServerContext {
        ServerContext(
            handler: { _ in .now(HTTPResponse(status: 200)) }, limits: HTTPServerLimits(), isUnixSocket: true,
            admission: HTTPServerAdmission())
    }

    @Test func aRequestThatEndsUnansweredIsOwedNoMore() {
        let context = Self.context()
        let held = DeferredResponse(connection: Self.connection, context: context)
        context.deferred.withLock { $0.owed[connectionID(Self.connection)] = held }
        held.complete()
        #expect(held.isComplete)
        #expect(context.deferred.withLock { $0.owed.isEmpty }, "the ended request no longer holds its entry")
    }

    @Test func theEndOfAnEarlierRequestLeavesTheNextOneOnTheConnectionOwed() {
        let context = Self.context()
        let earlier = DeferredResponse(connection: Self.connection, context: context)
        let next = DeferredResponse(connection: Self.connection, context: context)
        context.deferred.withLock { $0.owed[connectionID(Self.connection)] = next }
        earlier.complete()
        #expect(context.deferred.withLock { $0.owed[connectionID(Self.connection)] } === next)
    }
}
