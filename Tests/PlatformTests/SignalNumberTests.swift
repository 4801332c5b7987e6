import Glibc
import Testing

@testable import Platform

@Suite struct SignalNumberTests {
    @Test func theNamedSignalsAreLinuxsNumbers() {
        #expect(SignalNumber.terminate == 15 && SignalNumber.interrupt == 2 && SignalNumber.hangUp == 1)
        #expect(SignalNumber.kill == 9 && SignalNumber.child == SIGCHLD && SignalNumber.windowChanged == SIGWINCH)
    }

    @Test func namesAreTheOnesLogLinesAndCardsSay() {
        #expect(SignalNumber.name(of: SignalNumber.terminate) == "SIGTERM")
        #expect(SignalNumber.name(of: SignalNumber.user1) == "SIGUSR1")
        #expect(SignalNumber.name(of: SIGSEGV) == "SIGSEGV")
        #expect(SignalNumber.name(of: SignalNumber.windowChanged) == "SIGWINCH")
        #expect(SignalNumber.name(of: 40) == "signal 40")
    }
}
