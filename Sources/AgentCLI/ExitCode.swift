/// aidenctl's exit status. The non-zero values follow sysexits.h so scripts can tell "fix your command"
/// from "fix your input" from "start the daemon".
package enum ExitCode: Int32, Sendable, Equatable {
    case ok = 0
    /// The daemon answered with an error other than bad input (404, 409, 5xx), or an unusable answer.
    case failure = 1
    /// EX_USAGE: the command line is wrong; nothing was sent.
    case usage = 64
    /// EX_DATAERR: the daemon rejected the input (400, 413).
    case dataError = 65
    /// EX_UNAVAILABLE: aiden-board could not be reached or did not answer.
    case unavailable = 69
    /// EX_TEMPFAIL: `task wait` gave up after its `--timeout`; trying again later may succeed.
    case timedOut = 75
}
