#if canImport(Glibc)
import Glibc
#endif

/// A dedicated POSIX thread for a loop that blocks in the kernel (the phone's Wake receiver, libusb's
/// event loop), joined on stop. Dispatch's pool is for short work items; a loop that blocks for its
/// whole life gets its own thread.
package final class JoinableThread: @unchecked Sendable {  // `thread` is written once in start, read once in join
    private let body: @Sendable () -> Void
    private var thread: pthread_t?

    private init(body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    /// Starts `body` on a new thread; nil if the system refused to create one.
    package static func start(_ body: @escaping @Sendable () -> Void) -> JoinableThread? {
        try? started(body)
    }

    /// Starts `body` on a new thread, or says why the system refused to create one (EAGAIN: too many threads).
    package static func started(_ body: @escaping @Sendable () -> Void) throws(SystemCallError) -> JoinableThread {
        let box = JoinableThread(body: body)
        let context = Unmanaged.passRetained(box).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                let box = Unmanaged<JoinableThread>.fromOpaque(raw).takeRetainedValue()
                box.body()
                return nil
            }, context)
        guard rc == 0 else {
            Unmanaged<JoinableThread>.fromOpaque(context).release()
            throw SystemCallError(operation: "pthread_create", code: rc)
        }
        box.thread = thread
        return box
    }

    /// Waits for the body to return.
    package func join() {
        guard let thread else { return }
        self.thread = nil
        pthread_join(thread, nil)
    }
}
