// swift-tools-version:6.0
// AidenBridge: a local-only device bridge for AI agents on a board attached to a phone.
//
// Layout (see docs/architecture.md): pure cores (no I/O, no clocks, no C) at the bottom,
// one system-library target per C library, thin shells that each import exactly one C
// module, and three executables that only wire things together.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    // Each function in its own section, so the release link can place the hot ones together (`daemonLink`).
    .unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release)),
]

// The three shipped programs bind their symbols at start-up in release (`-z now`), so the relocated table is
// read-only (full RELRO), as Debian's hardening asks: Swift's linker driver does not take dpkg-buildflags' LDFLAGS.
let bindNow: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "now"], .when(configuration: .release))]

// A daemon's release link (docs/architecture.md, "Memory"). The functions the ready daemon runs
// (link/<daemon>.hot, written by scripts/hot-functions) go side by side at the start of its code, so its
// resident code is one region instead of pages spread over the whole binary; lld places them by name, and
// link/local-helpers.ld puts just before them what no list can place: functions without a name (`.L…`) and
// every object's copies of the small helpers emitted into each (`…TA`, `…Tm`, `…WO?`, `…Wl`, `…Ma`).
// With `bindNow` (and the units' LD_BIND_NOW=1 for the libraries' own calls): no lazy binding reads the symbol
// tables after the trim.
func daemonLink(_ daemon: String) -> [LinkerSetting] {
    [
        .unsafeFlags(
            [
                "-use-ld=lld",
                "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/link/\(daemon).hot",
                "-Xlinker", "--no-warn-symbol-ordering",
                "-Xlinker", "--script=\(Context.packageDirectory)/link/local-helpers.ld",
            ], .when(configuration: .release))
    ] + bindNow
}

let package = Package(
    name: "AidenBridge",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "aiden-board", targets: ["aiden-board"]),
        .executable(name: "aiden-phone", targets: ["aiden-phone"]),
        .executable(name: "aidenctl", targets: ["aidenctl"]),
    ],
    targets: [
        // MARK: Pure cores
        .target(name: "WakeProtocol", swiftSettings: strict),
        // The snapshot's vocabulary, named once: keys, phase/status/transition/app-state enums and their
        // open forms, the tolerant SnapshotView, JSONValue, JSON string quoting.
        .target(name: "WireFormat", swiftSettings: strict),
        .target(name: "LiveActivity", dependencies: ["Logging", "WireFormat"], swiftSettings: strict),
        .target(name: "NetworkAddress", swiftSettings: strict),
        // Retry delays (`Backoff`), one rule for every retry: the phone's fetches, both buses' reconnections,
        // bluetoothd's steps and the phone's search.
        .target(name: "Retry", swiftSettings: strict),
        // Log severities (pure cores return log effects in them, Platform's Logger writes them) and the one
        // rule for control characters in text from outside (`ControlCharacter`: escaped in every log line and
        // message, shown bounded, dropped for people, refused in task text). No dependencies, so every target
        // that meets such text can use it.
        .target(name: "Logging", swiftSettings: strict),
        .target(name: "Configuration", dependencies: ["NetworkAddress", "WireFormat"], swiftSettings: strict),
        // The phone's decisions: PhoneSession and the state machines and answers it composes.
        .target(
            name: "PhoneCore", dependencies: ["Logging", "NetworkAddress", "Retry", "WakeProtocol", "WireFormat"],
            swiftSettings: strict),
        .target(
            name: "BoardAPI",
            dependencies: ["LiveActivity", "Logging", "NetworkAddress", "WakeProtocol", "WireFormat"],
            swiftSettings: strict),
        // What an HTTP client decides: the request's bytes and destination, and the response read from its bytes.
        .target(name: "HTTPClientCore", dependencies: ["NetworkAddress", "WireFormat"], swiftSettings: strict),
        // One command-line syntax for the three programs: `--opt value` and `--opt=value`, `-h`, `--`.
        .target(name: "CommandLineSyntax", swiftSettings: strict),
        .target(
            name: "AgentCLI", dependencies: ["CommandLineSyntax", "Logging", "WireFormat"], swiftSettings: strict),
        // D-Bus as values: names, signatures, messages, match rules, exported objects and the `MessageBus`
        // seam, so everything that talks to BlueZ compiles and is tested without libdbus.
        .target(name: "DBusModel", swiftSettings: strict),

        // MARK: C libraries (module map + shim header, with pkg-config where the library has one)
        // Linux's epoll, eventfd and accept4, which Swift's Glibc module leaves out: the HTTP server's loop.
        .systemLibrary(name: "CLinuxEvents"),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CUSB", pkgConfig: "libusb-1.0", providers: [.apt(["libusb-1.0-0-dev"])]),
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),

        // MARK: Shells (each imports exactly one C module, internally)
        // Logger, the time seam (Runtime, SerialRuntime), atomic files, UDP sockets, signals: no C library, so
        // the BlueZ lifecycles and everything else that only needs time and logs build without one.
        .target(name: "Platform", dependencies: ["Logging", "NetworkAddress"], swiftSettings: strict),
        // sd_notify and the watchdog that pets it: the one target that imports libsystemd.
        .target(name: "ServiceManager", dependencies: ["CSystemd", "Logging", "Platform"], swiftSettings: strict),
        .target(
            name: "HTTPServer",
            dependencies: ["CLinuxEvents", "BoardAPI", "LiveActivity", "NetworkAddress", "Platform"],
            swiftSettings: strict),
        // The project's HTTP/1.1 client: requests written out and responses read here, sockets in the shell.
        .target(
            name: "HTTPClient", dependencies: ["HTTPClientCore", "NetworkAddress", "Platform"], swiftSettings: strict),
        // Reading a configuration's files: the one place `Configuration` (a pure core) meets the file system.
        .target(name: "ConfigurationFiles", dependencies: ["Configuration", "Platform"], swiftSettings: strict),
        .target(name: "DBus", dependencies: ["CDBus", "DBusModel", "Platform"], swiftSettings: strict),
        .target(name: "BluetoothHCI", dependencies: ["CBluetooth", "NetworkAddress"], swiftSettings: strict),
        .target(name: "USBLink", dependencies: ["CUSB", "PhoneCore", "Platform"], swiftSettings: strict),
        // The board's configfs ECM gadget: pure planning plus a file-tree seam, no C library.
        .target(name: "USBGadget", dependencies: ["NetworkAddress"], swiftSettings: strict),
        .target(name: "DesktopNotifications", dependencies: ["DBusModel"], swiftSettings: strict),
        // What both doctors share: findings, the host's interfaces (getifaddrs) and IPv4 routes, and the
        // judgement of another network in the ECM subnet. No C library.
        .target(
            name: "Doctor", dependencies: ["Logging", "NetworkAddress", "Platform", "WireFormat"], swiftSettings: strict
        ),
        // BLE over BlueZ's D-Bus API: the board's Wake GATT peripheral and the phone's Wake central.
        .target(
            name: "BlueZ", dependencies: ["DBusModel", "Logging", "NetworkAddress", "Platform", "Retry", "WireFormat"],
            swiftSettings: strict),
        // The board's engine and daemon wiring, as a library so it is testable without the executable.
        .target(
            name: "BoardService",
            dependencies: [
                "BoardAPI", "LiveActivity", "WakeProtocol", "Configuration", "ConfigurationFiles", "NetworkAddress",
                "CommandLineSyntax",
                "Platform", "Logging", "HTTPServer", "BlueZ", "BluetoothHCI", "DBus", "DBusModel", "USBGadget",
                "ServiceManager", "Doctor", "WireFormat", "Retry", "HTTPClient", "HTTPClientCore",
            ],
            swiftSettings: strict),
        // The phone client's engine and daemon wiring, as a library so it is testable without the executable.
        .target(
            name: "PhoneService",
            dependencies: [
                "PhoneCore", "Configuration", "ConfigurationFiles", "NetworkAddress", "Platform", "Logging",
                "CommandLineSyntax",
                "HTTPClient", "HTTPClientCore", "USBLink", "DBus", "DBusModel", "DesktopNotifications", "BlueZ",
                "WireFormat",
                "ServiceManager", "Doctor", "HTTPServer", "BoardAPI", "Retry",
            ],
            swiftSettings: strict),

        // MARK: Executables (composition roots)
        .executableTarget(
            name: "aiden-board", dependencies: ["BoardService", "Platform", "Doctor"], swiftSettings: strict,
            linkerSettings: daemonLink("aiden-board")),
        .executableTarget(
            name: "aiden-phone", dependencies: ["PhoneService", "Platform", "Doctor"], swiftSettings: strict,
            linkerSettings: daemonLink("aiden-phone")),
        .executableTarget(
            name: "aidenctl", dependencies: ["AgentCLI", "HTTPClient", "HTTPClientCore", "Platform", "WireFormat"],
            swiftSettings: strict,
            linkerSettings: bindNow),

        // bench/: the final state after bursts of changes, on the real engine and client in simulated time.
        .executableTarget(
            name: "aiden-bench-bursts",
            dependencies: [
                "BoardAPI", "BoardService", "LiveActivity", "Logging", "NetworkAddress", "PhoneCore", "PhoneService",
                "Platform", "TestSupport", "WakeProtocol", "WireFormat",
            ],
            path: "bench/WakeBursts", swiftSettings: strict),

        // MARK: Fuzzing (fuzz/, docs/fuzzing.md)
        // libFuzzer's driver entry, declared only: `-sanitize=fuzzer` links libFuzzer in scripts/fuzz's build.
        .systemLibrary(name: "CLibFuzzer", path: "fuzz/CLibFuzzer"),
        // One harness per parser that takes outside input, with the invariants it checks. A library, so the
        // checked-in corpus also replays in `swift test` (FuzzHarnessTests).
        .target(
            name: "FuzzHarnesses",
            dependencies: [
                "BlueZ", "BoardAPI", "CLibFuzzer", "Configuration", "DBus", "DBusModel", "HTTPClientCore",
                "LiveActivity", "NetworkAddress", "PhoneCore", "WakeProtocol", "WireFormat",
            ],
            path: "fuzz/Harnesses", swiftSettings: strict),
        // One executable per harness: libFuzzer's driver in scripts/fuzz's build (-DAIDEN_LIBFUZZER), a replay of
        // input files in every other build, which links no libFuzzer.
        .executableTarget(
            name: "fuzz-wake-envelope", dependencies: ["FuzzHarnesses"], path: "fuzz/Targets/fuzz-wake-envelope",
            swiftSettings: strict),
        .executableTarget(
            name: "fuzz-toml", dependencies: ["FuzzHarnesses"], path: "fuzz/Targets/fuzz-toml", swiftSettings: strict),
        .executableTarget(
            name: "fuzz-agent-api", dependencies: ["FuzzHarnesses"], path: "fuzz/Targets/fuzz-agent-api",
            swiftSettings: strict),
        .executableTarget(
            name: "fuzz-phone-api", dependencies: ["FuzzHarnesses"], path: "fuzz/Targets/fuzz-phone-api",
            swiftSettings: strict),
        .executableTarget(
            name: "fuzz-dbus-message", dependencies: ["FuzzHarnesses"], path: "fuzz/Targets/fuzz-dbus-message",
            swiftSettings: strict),
        .executableTarget(
            name: "fuzz-phone-answers", dependencies: ["FuzzHarnesses"], path: "fuzz/Targets/fuzz-phone-answers",
            swiftSettings: strict),
        .executableTarget(
            name: "fuzz-http-request", dependencies: ["FuzzHarnesses"], path: "fuzz/Targets/fuzz-http-request",
            swiftSettings: strict),
        .executableTarget(
            name: "fuzz-http-response", dependencies: ["FuzzHarnesses"], path: "fuzz/Targets/fuzz-http-response",
            swiftSettings: strict),

        // MARK: Tests
        // The test doubles (fake bus, in-memory file system, captured logs), a private dbus-daemon per test
        // and bounded waits: kept out of the production modules. A plain target (no Testing import), so the
        // release build of everything still builds it.
        .target(
            name: "TestSupport",
            dependencies: [
                "BoardAPI", "DBus", "DBusModel", "LiveActivity", "Logging", "Platform", "WakeProtocol", "WireFormat",
            ],
            path: "Tests/TestSupport"),
        .testTarget(name: "WakeProtocolTests", dependencies: ["WakeProtocol"]),
        // The shared vocabulary, and that the board's strict encoder and the tolerant view agree on every key.
        .testTarget(name: "WireFormatTests", dependencies: ["WireFormat", "LiveActivity"]),
        .testTarget(name: "LiveActivityTests", dependencies: ["LiveActivity", "WakeProtocol", "WireFormat"]),
        .testTarget(name: "NetworkAddressTests", dependencies: ["NetworkAddress"]),
        .testTarget(name: "RetryTests", dependencies: ["Retry"]),
        .testTarget(
            name: "BoardAPITests",
            dependencies: [
                "BoardAPI", "LiveActivity", "Logging", "NetworkAddress", "TestSupport", "WakeProtocol", "WireFormat",
            ]),
        .testTarget(
            name: "BoardServiceTests",
            dependencies: [
                "BoardService", "BoardAPI", "LiveActivity", "WakeProtocol", "Platform",
                "Configuration", "NetworkAddress", "TestSupport", "Doctor", "Logging", "WireFormat",
            ]),
        // The built executables as processes: aiden-board, aidenctl, loopback and network namespaces.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "HTTPClient", "HTTPClientCore", "Platform", "NetworkAddress", "WakeProtocol", "HTTPServer",
                "BoardAPI", "DBus", "DBusModel", "LiveActivity", "TestSupport", "WireFormat",
            ],
            // slow_clients.py: the slow-client flood, run inside the tests' network namespaces.
            exclude: ["Fixtures"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "BoardAPI", "NetworkAddress", "Platform"]),
        .testTarget(
            name: "ConfigurationTests", dependencies: ["Configuration", "ConfigurationFiles", "NetworkAddress"]),
        .testTarget(name: "DoctorTests", dependencies: ["Doctor", "NetworkAddress"]),
        // The fake board both phone test targets drive.
        .target(
            name: "PhoneTestSupport",
            dependencies: ["PhoneCore", "WireFormat", "BoardAPI", "HTTPServer", "NetworkAddress"],
            path: "Tests/PhoneTestSupport"),
        .testTarget(
            name: "PhoneCoreTests",
            dependencies: ["PhoneCore", "PhoneTestSupport", "Retry", "WakeProtocol", "WireFormat"]),
        .testTarget(
            name: "PhoneServiceTests",
            dependencies: [
                "PhoneService", "PhoneCore", "PhoneTestSupport", "WakeProtocol", "Platform", "USBLink",
                "NetworkAddress", "DesktopNotifications", "TestSupport", "BlueZ", "Configuration", "DBus", "DBusModel",
                "Doctor", "Logging", "WireFormat", "BoardAPI", "CommandLineSyntax", "Retry",
            ]),
        .testTarget(name: "PlatformTests", dependencies: ["Platform", "Logging", "NetworkAddress", "TestSupport"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "HTTPClientCore", "NetworkAddress"]),
        .testTarget(name: "AgentCLITests", dependencies: ["AgentCLI", "CommandLineSyntax", "WireFormat"]),
        .testTarget(name: "CommandLineSyntaxTests", dependencies: ["CommandLineSyntax"]),
        // Every checked-in fuzz input (seeds and past crashes) through its harness, without libFuzzer.
        .testTarget(name: "FuzzHarnessTests", dependencies: ["FuzzHarnesses", "WireFormat"]),
        // DBusTests also covers DesktopNotifications: it needs the same private-bus harness.
        .testTarget(
            name: "DBusTests", dependencies: ["DBus", "DBusModel", "DesktopNotifications", "TestSupport"]),
        // Transcript tests on the fake bus, and a private dbus-daemon with a fake bluetoothd (Python) process.
        .testTarget(
            name: "BlueZTests",
            dependencies: [
                "BlueZ", "DBus", "DBusModel", "WakeProtocol", "Platform", "BoardService", "BoardAPI",
                "BluetoothHCI", "LiveActivity", "NetworkAddress", "TestSupport", "Doctor", "Retry", "WireFormat",
            ],
            exclude: ["Fixtures"]),
        .testTarget(name: "USBGadgetTests", dependencies: ["USBGadget", "BoardService", "Doctor", "NetworkAddress"]),
        // Units, udev rules, network files, the install script and the man pages, checked as files and with
        // systemd's and groff's tools; the man pages against the parsers' option tables and the configuration's keys.
        .testTarget(
            name: "DeploymentTests",
            dependencies: [
                "USBGadget", "Configuration", "NetworkAddress", "AgentCLI", "CommandLineSyntax", "BoardService",
                "PhoneService", "PhoneTestSupport",
            ],
            exclude: ["vm"]),
        .testTarget(
            name: "CLibrarySmokeTests",
            dependencies: ["DBus", "BluetoothHCI", "USBLink", "ServiceManager"]),
    ],
    swiftLanguageModes: [.v6]
)
