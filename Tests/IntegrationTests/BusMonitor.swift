import Foundation

/// `dbus-monitor` on a `WaylandDesktop`'s session bus, run as the desktop's user (the bus's owner may monitor
/// it): what the test reads to see which connection called which method of whom, as a host's calls cannot be
/// seen otherwise.
final class BusMonitor {
    static let program = "/usr/bin/dbus-monitor"

    /// One method call as the monitor printed its header line.
    struct Call: Equatable {
        var sender: String
        var destination: String
        var path: String
        var interface: String
        var member: String
    }

    let logPath: String
    private var group: pid_t = 0

    init(_ desktop: WaylandDesktop) throws {
        logPath = desktop.scratch.path + "/monitor.log"
        group = try cleanSpawn(
            WaylandDesktop.asNobody + [Self.program, "--address", desktop.busAddress],
            environment: ["PATH=/usr/bin:/bin", "LANG=C.UTF-8"], log: logPath, newGroup: true)
        // It has become a monitor once it printed its own NameAcquired/NameLost (or any message).
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, log.isEmpty { usleep(20_000) }
        guard !log.isEmpty else {
            stop()
            throw IntegrationError("dbus-monitor printed nothing")
        }
    }

    deinit { stop() }

    func stop() {
        endGroup(&group)
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Every method call seen so far, from lines such as `method call time=… sender=:1.0 -> destination=:1.7
    /// serial=9 path=/StatusNotifierItem; interface=org.freedesktop.DBus.Properties; member=GetAll`.
    var calls: [Call] {
        log.split(separator: "\n").filter { $0.hasPrefix("method call ") }.compactMap { line in
            var fields: [String: String] = [:]
            for word in line.split(separator: " ") {
                guard let equals = word.firstIndex(of: "=") else { continue }
                var value = word[word.index(after: equals)...]
                if value.hasSuffix(";") { value = value.dropLast() }
                fields[String(word[..<equals])] = String(value)
            }
            guard let sender = fields["sender"], let destination = fields["destination"], let path = fields["path"],
                let member = fields["member"]
            else { return nil }
            return Call(
                sender: sender, destination: destination, path: path, interface: fields["interface"] ?? "",
                member: member)
        }
    }
}
