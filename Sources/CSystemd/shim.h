// libsystemd for Swift: sd_notify (sd_notifyf is variadic: format in Swift instead), sd_listen_fds,
// sd_booted, sd_watchdog_enabled and the journald priority prefixes.
#pragma once
#include <stdint.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
