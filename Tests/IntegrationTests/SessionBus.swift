import Foundation

/// A private session dbus-daemon for a test, listening on a socket the test names (in its scratch
/// directory), for the phone's desktop notifications and its doctor.
enum SessionBus {
    static let daemon = "/usr/bin/dbus-daemon"

    static var available: Bool { FileManager.default.isExecutableFile(atPath: daemon) }

    /// Starts it and returns the process (stop it with SIGKILL: it inherits the test process's blocked
    /// SIGTERM) and its address.
    static func start(socket: String) throws -> (Process, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: daemon)
        process.arguments = [
            "--session", "--nofork", "--nopidfile", "--print-address=1", "--address=unix:path=\(socket)",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !line.contains(0x0A) {
            line.append(output.fileHandleForReading.availableData)
        }
        let address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard address.hasPrefix("unix:") else { throw IntegrationError("dbus-daemon gave no address") }
        return (process, address)
    }

    static func stop(_ process: Process) {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
