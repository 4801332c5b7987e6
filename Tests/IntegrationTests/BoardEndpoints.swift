import Foundation
import HTTPClient
import HTTPClientCore

/// A running board's two doors as plain values, so worker threads of the fault suite can call them
/// (`BoardProcess` itself is not `Sendable`).
struct BoardEndpoints: Sendable {
    let socketPath: String
    let port: UInt16

    init(_ board: BoardProcess) {
        socketPath = board.socketPath
        port = board.port
    }

    /// A request on the agent socket; nil when no answer came (the board is down or too slow).
    func agent(
        _ method: String, _ path: String, body: String = "", totalMilliseconds: Int = 5000
    )
        -> HTTPClientResponse?
    {
        try? HTTPClient().perform(
            HTTPClientRequest(
                method: method, url: "http://localhost\(path)", headers: [("Content-Type", "application/json")],
                body: Array(body.utf8), unixSocketPath: socketPath,
                timeout: .init(connectMilliseconds: 1000, totalMilliseconds: totalMilliseconds)))
    }

    /// A phone request on the loopback HTTP listener (a GET unless told otherwise); nil when no answer came.
    func phone(
        _ path: String, method: String = "GET", headers: [(String, String)] = [], body: String = "",
        totalMilliseconds: Int = 5000
    ) -> HTTPClientResponse? {
        try? HTTPClient().perform(
            HTTPClientRequest(
                method: method, url: "http://127.0.0.1:\(port)\(path)", headers: headers, body: Array(body.utf8),
                timeout: .init(connectMilliseconds: 1000, totalMilliseconds: totalMilliseconds)))
    }
}

/// The same JSON value always as the same text (sorted keys), so two answers can be compared.
func canonicalJSON(_ object: Any) -> String {
    guard JSONSerialization.isValidJSONObject(object),
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    else { return "\(object)" }
    return String(decoding: data, as: UTF8.self)
}

/// Waits (bounded, checking every 20 ms) until `condition` holds; whether it did. Not a timing assertion.
func eventually(timeoutSeconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeoutSeconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}
