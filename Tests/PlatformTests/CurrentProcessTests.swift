import Glibc
import Testing

@testable import Platform

/// This test process, seen through `CurrentProcess`, against what libc says directly.
@Suite struct CurrentProcessTests {
    @Test func theEnvironmentIsReadWhole() {
        setenv("AIDEN_CURRENT_PROCESS_TEST", "a=b", 1)
        defer { unsetenv("AIDEN_CURRENT_PROCESS_TEST") }
        // Only the first `=` separates the name: the value keeps its own.
        #expect(CurrentProcess.environment()["AIDEN_CURRENT_PROCESS_TEST"] == "a=b")
    }

    @Test func theUserIsTheRealOne() {
        #expect(CurrentProcess.isRoot() == (geteuid() == 0))
        #expect(CurrentProcess.userID() == getuid())
        let name = CurrentProcess.userName()
        #expect(!name.isEmpty)
        if getuid() == 0 { #expect(name == "root") }
    }

    @Test func groupsAreLookedUpByName() {
        #expect(CurrentProcess.groupID(named: "root") == 0)
        #expect(CurrentProcess.groupID(named: "no-such-group-aiden") == nil)
    }
}
