import ServiceManager

// Until `PhoneDaemon.swift` (being moved onto the phone's runtime) imports ServiceManager itself, these keep
// the names it uses visible in this module. Delete this file once it does.
typealias Systemd = ServiceManager.Systemd
typealias Watchdog = ServiceManager.Watchdog
