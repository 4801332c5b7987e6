import Foundation
import Testing

@testable import PhoneService

/// The phone's desktop entry (`desktop/aiden-phone.desktop`): what the notifications' `desktop-entry` hint, the
/// launcher entry (`application://aiden-phone.desktop`) and Phosh's lock screen name.
@Suite struct DesktopEntryTests {
    static let path = "desktop/aiden-phone.desktop"

    /// `key=value` lines of the main group.
    static func mainGroup() throws -> [String: String] {
        var values: [String: String] = [:]
        for line in try Repository.text(path).split(separator: "\n") {
            if line.hasPrefix("[Desktop Action") { break }
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }

    @Test func itIsTheEntryTheNotificationsName() {
        #expect(Self.path.hasSuffix("/\(DesktopCardSurface.desktopEntry).desktop"))
    }

    /// The lock screen may offer only buttons the notifications have (their action keys are the answers' names),
    /// and each desktop action runs the command that answers the current task.
    @Test func itsActionsAreTheCardsAnswers() throws {
        let group = try Self.mainGroup()
        let lockScreen = group["X-Phosh-Lockscreen-Actions"]?.split(separator: ";").map(String.init) ?? []
        #expect(lockScreen == ["stop", "done", "refuse"])
        #expect(group["Actions"] == "stop;done;refuse;")
        let text = try Repository.text(Self.path)
        for key in lockScreen {
            #expect(text.contains("[Desktop Action \(key)]\nName="), "\(key)")
            #expect(text.contains("Exec=aiden-phone \(key)\n"), "\(key)")
        }
        #expect(group["Exec"] == "aiden-phone" && group["Terminal"] == "true" && group["NoDisplay"] == "true")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/desktop-file-validate")))
    func itIsValid() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/desktop-file-validate")
        process.arguments = [Repository.root + "/" + Self.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 && text.isEmpty, "\(text)")
    }
}
