/// A command line aidenctl will not run: one line naming what is wrong and which `--help` explains it.
package struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    /// The command whose usage the user should read.
    package var topic: HelpTopic

    package init(_ message: String, topic: HelpTopic) {
        self.message = message
        self.topic = topic
    }

    package var description: String {
        "\(message) (see '\(topic.commandLine) --help')"
    }
}
