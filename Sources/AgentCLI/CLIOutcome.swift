/// What a run prints and how it exits; the executable only writes these out.
package struct CLIOutcome: Sendable, Equatable {
    package var standardOutput: String
    package var standardError: String
    package var exitCode: ExitCode

    package init(standardOutput: String = "", standardError: String = "", exitCode: ExitCode) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.exitCode = exitCode
    }

    /// A failure: its line on stderr and, with `--json` (never for usage errors), a JSON error object on
    /// stdout so that scripts reading stdout always get one object.
    package init(failure: CLIFailure, json: Bool, daemonObject: String? = nil) {
        var output = ""
        if json, failure.exitCode != .usage { output = (daemonObject ?? failure.jsonObject) + "\n" }
        self.init(standardOutput: output, standardError: failure.line + "\n", exitCode: failure.exitCode)
    }
}
