import Glibc
import Testing

@testable import Platform

@Suite struct FileSystemErrorTests {
    @Test func descriptionNamesCallPathsAndErrno() {
        let error = FileSystemError(.rename, path: "/s/wake.json.tmp", destination: "/s/wake.json", code: ENOENT)
        #expect(error.description == "rename /s/wake.json.tmp -> /s/wake.json: No such file or directory (errno 2)")
        #expect(error.isNotFound)
        let denied = FileSystemError(.open, path: "/s/wake.json", code: EACCES)
        #expect(denied.description == "open /s/wake.json: Permission denied (errno 13)")
        #expect(!denied.isNotFound)
        #expect(denied.reason == "Permission denied")
    }
}
