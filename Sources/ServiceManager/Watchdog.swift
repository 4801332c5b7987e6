import Dispatch
import Platform

/// Pets systemd's watchdog (the unit's `WatchdogSec=`) at half its interval, but only while the
/// daemon proves it is alive, so a wedged daemon is restarted instead of kept. The check runs on
/// the watchdog's own queue and must not wait for the daemon's executor or its disk.
package final class Watchdog {
    private let timer: any DispatchSourceTimer

    private init(timer: any DispatchSourceTimer) {
        self.timer = timer
    }

    /// Starts petting when the unit asked for a watchdog; nil (nothing to do) otherwise.
    package static func start(
        label: String, logger: Logger, isAlive: @escaping @Sendable () -> Bool
    ) -> Watchdog? {
        guard let interval = Systemd.watchdogIntervalMicroseconds else { return nil }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: label))
        let period = DispatchTimeInterval.microseconds(Int(clamping: interval / 2))
        timer.schedule(deadline: .now() + period, repeating: period)
        timer.setEventHandler {
            if isAlive() { Systemd.notify("WATCHDOG=1") }
        }
        timer.resume()
        logger.info("watchdog every \(interval / 2_000) ms")
        return Watchdog(timer: timer)
    }

    deinit { timer.cancel() }
}
