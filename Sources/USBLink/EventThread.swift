#if canImport(Glibc)
import Glibc
#endif

/// A dedicated POSIX thread for a blocking event loop (libusb's), joined on stop. Dispatch's pool
/// is for short work items; a loop that blocks for seconds at a time gets its own thread.
final class EventThread: @unchecked Sendable {  // `thread` is written once in start, read once in join
    private let body: @Sendable () -> Void
    private var thread: pthread_t?

    private init(body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    /// Starts `body` on a new thread; nil if the system refused to create one.
    static func start(_ body: @escaping @Sendable () -> Void) -> EventThread? {
        let box = EventThread(body: body)
        let context = Unmanaged.passRetained(box).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let box = Unmanaged<EventThread>.fromOpaque(raw).takeRetainedValue()
            box.body()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<EventThread>.fromOpaque(context).release()
            return nil
        }
        box.thread = thread
        return box
    }

    /// Waits for the body to return.
    func join() {
        guard let thread else { return }
        self.thread = nil
        pthread_join(thread, nil)
    }
}
