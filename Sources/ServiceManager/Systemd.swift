internal import CSystemd
import Logging

/// The service manager's notification protocol (sd_notify) and facts about how we were started.
/// Every call is a no-op when not run under systemd (NOTIFY_SOCKET unset), so daemons call it freely.
package enum Systemd {
    /// Whether the host was booted with systemd as init.
    package static var isBooted: Bool { sd_booted() > 0 }

    /// Sends a notification such as "READY=1" or "STATUS=…". Returns whether a manager received it.
    @discardableResult
    package static func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    /// Sends `STATUS=text` (what `systemctl status` shows). Control characters in it are escaped
    /// (`ControlCharacter.escaping`): a line feed would end the assignment and let text from outside (a BlueZ error
    /// in the board's status) send `READY=1` or `WATCHDOG=1` of its own.
    @discardableResult
    package static func notifyStatus(_ text: String) -> Bool {
        notify(statusAssignment(text))
    }

    /// `STATUS=text`, one line.
    package static func statusAssignment(_ text: String) -> String {
        "STATUS=\(ControlCharacter.escaping(text))"
    }

    /// The sockets the service manager passed (socket activation: `LISTEN_FDS`, `LISTEN_PID`), as descriptors
    /// from 3 on; empty when not socket-activated. The variables are unset, so a child would not take them too.
    package static func listenDescriptors() -> [Int32] {
        let count = sd_listen_fds(1)
        guard count > 0 else { return [] }
        return (0..<count).map { SD_LISTEN_FDS_START + $0 }
    }

    /// The watchdog interval requested by the unit (WatchdogSec=), in microseconds, or nil when off.
    package static var watchdogIntervalMicroseconds: UInt64? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return usec
    }
}
