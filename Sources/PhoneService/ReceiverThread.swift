#if canImport(Glibc)
import Glibc
#endif

/// A dedicated POSIX thread for a loop that blocks in the kernel (the Wake receiver), joined on
/// stop. Dispatch's pool is for short work items, not for a loop that blocks for its whole life.
final class ReceiverThread: @unchecked Sendable {  // `thread` is written once in start, read once in join
    private let body: @Sendable () -> Void
    private var thread: pthread_t?

    private init(body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    /// Starts `body` on a new thread; nil if the system refused to create one.
    static func start(_ body: @escaping @Sendable () -> Void) -> ReceiverThread? {
        let box = ReceiverThread(body: body)
        let context = Unmanaged.passRetained(box).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let box = Unmanaged<ReceiverThread>.fromOpaque(raw).takeRetainedValue()
            box.body()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<ReceiverThread>.fromOpaque(context).release()
            return nil
        }
        box.thread = thread
        return box
    }

    func join() {
        guard let thread else { return }
        self.thread = nil
        pthread_join(thread, nil)
    }
}
