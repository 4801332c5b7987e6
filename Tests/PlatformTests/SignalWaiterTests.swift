import Glibc
import Testing

@testable import Platform

@Suite struct SignalWaiterTests {
    /// A signal this thread sends itself, blocked first, is taken by `next` and marked as not the kernel's.
    @Test func nextTakesABlockedSignalWithItsSender() {
        let waiter = SignalWaiter.block([SIGURG])
        defer {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGURG)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
        }
        pthread_kill(pthread_self(), SIGURG)
        #expect(waiter.next() == SignalWaiter.Received(number: SIGURG, fromKernel: false))
    }
}
