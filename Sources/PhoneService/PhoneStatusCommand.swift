import BlueZ
import Configuration
import HTTPClient
import HTTPClientCore
import PhoneCore
import Platform
import Retry

/// `aiden-phone status [--follow] [--json]` (docs/desktop.md): the card as one line for a status bar, from the
/// running client's bar status socket (`StatusSocket`). The client already follows the board (Wakes, fetches, the
/// cable, the person's answers); asking it costs the board nothing and shows exactly what the notifications show.
///
/// Without `--follow`: one line, exit 0, or one clear line on stderr and 69 when no client answers. With it: one line
/// now and one per change, each written as soon as it is known (the client holds the request until the line
/// changes); when the client goes away, one `aiden-phone is not running` line, then quiet tries again (1 s doubling
/// to 30 s) until it answers, and its line again.
package enum PhoneStatusCommand {
    /// EX_UNAVAILABLE: nothing answers on the socket.
    package static let unavailableExitCode: Int32 = 69
    /// How long each held request waits at the client (it answers 304 then, and the follower asks again).
    static let holdSeconds = 50

    /// `write` gets each line (without its newline); `complain` the one line on failure; `sleep` waits between
    /// tries. Returns the exit status (only after a failure with `follow`; never otherwise).
    package static func run(
        follow: Bool, json: Bool, environment: [String: String], write: (String) -> Void,
        complain: (String) -> Void,
        sleep: (Duration) -> Void = { ThreadSleep.sleep(for: $0) }
    ) -> Int32 {
        guard let path = PhonePaths.resolve(isRoot: false, environment: environment).statusSocket else {
            complain(
                "aiden-phone: status: XDG_RUNTIME_DIR is not set to an absolute path, so there is no running "
                    + "client's status to read (run it in the person's session)")
            return unavailableExitCode
        }
        let client = HTTPClient(maxResponseBytes: 64 * 1024)
        var tag: String?
        var last: String?
        let backoff = Backoff(base: .seconds(1), cap: .seconds(30))
        var failures = 0
        while true {
            let wait = tag == nil ? 0 : holdSeconds
            let request = StatusSocket.request(
                path: path, json: json, wait: wait, tag: tag, milliseconds: (wait + 10) * 1000)
            switch Reply(Result { () throws(HTTPClientError) in try client.perform(request) }) {
            case let .line(line, newTag):
                tag = newTag
                failures = 0
                if line != last {
                    write(line)
                    last = line
                }
                guard follow else { return 0 }
            case .unchanged:
                continue
            case let .refused(status, words) where last == nil || !follow:
                complain("aiden-phone: status: the client answered HTTP \(status): \(words)")
                return unavailableExitCode
            case let .gone(reason) where last == nil || !follow:
                complain(
                    "aiden-phone: status: no aiden-phone answers at \(path) (\(reason)); start it "
                        + "(systemctl --user start aiden-phone)")
                return unavailableExitCode
            case .gone, .refused:
                // Once it has answered, a client that stops (it answers held requests 503) or is gone is waited for.
                tag = nil
                let line = json ? BarStatus.offline.waybarJSON : BarStatus.offline.text
                if line != last {
                    write(line)
                    last = line
                }
                failures += 1
                sleep(backoff.delay(afterFailures: failures))
            }
        }
    }

    /// What one request gave.
    enum Reply: Equatable {
        case line(String, tag: String?)
        case unchanged
        case refused(Int, String)
        case gone(String)

        init(_ outcome: Result<HTTPClientResponse, HTTPClientError>) {
            switch outcome {
            case let .success(response) where response.status == 200:
                let text = String(decoding: response.body, as: UTF8.self)
                self = .line(text.split(separator: "\n").first.map(String.init) ?? "", tag: response.headers["etag"])
            case let .success(response) where response.status == 304:
                self = .unchanged
            case let .success(response):
                self = .refused(response.status, BoardText.printable(String(decoding: response.body, as: UTF8.self)))
            case let .failure(error):
                self = .gone("\(error)")
            }
        }
    }
}
