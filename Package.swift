// swift-tools-version:6.0
// AidenBridge: a local-only device bridge for AI agents on a board attached to a phone.
//
// Layout (see docs/architecture.md): pure cores (no I/O, no clocks, no C) at the bottom,
// one system-library target per C library, thin shells that each import exactly one C
// module, and three executables that only wire things together.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

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
        .target(name: "LiveActivity", swiftSettings: strict),
        .target(name: "Configuration", swiftSettings: strict),
        .target(name: "BoardAPI", dependencies: ["LiveActivity", "WakeProtocol"], swiftSettings: strict),

        // MARK: C libraries (module map + shim header + pkg-config)
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CUSB", pkgConfig: "libusb-1.0", providers: [.apt(["libusb-1.0-0-dev"])]),
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // MARK: Shells (each imports exactly one C module, internally)
        .target(name: "Platform", dependencies: ["CSystemd"], swiftSettings: strict),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "BoardAPI"], swiftSettings: strict),
        .target(name: "HTTPClient", dependencies: ["CCurl"], swiftSettings: strict),
        .target(name: "DBus", dependencies: ["CDBus"], swiftSettings: strict),
        .target(name: "BluetoothHCI", dependencies: ["CBluetooth"], swiftSettings: strict),
        .target(name: "USBLink", dependencies: ["CUSB"], swiftSettings: strict),

        // MARK: Executables (composition roots)
        .executableTarget(name: "aiden-board",
                          dependencies: ["WakeProtocol", "LiveActivity", "Configuration", "Platform"],
                          swiftSettings: strict),
        .executableTarget(name: "aiden-phone",
                          dependencies: ["WakeProtocol", "Configuration", "Platform"],
                          swiftSettings: strict),
        .executableTarget(name: "aidenctl", dependencies: ["LiveActivity"], swiftSettings: strict),

        // MARK: Tests
        .testTarget(name: "WakeProtocolTests", dependencies: ["WakeProtocol"]),
        .testTarget(name: "LiveActivityTests", dependencies: ["LiveActivity"]),
        .testTarget(name: "ConfigurationTests", dependencies: ["Configuration"]),
        .testTarget(name: "PlatformTests", dependencies: ["Platform"]),
        .testTarget(name: "DBusTests", dependencies: ["DBus"]),
        .testTarget(name: "CLibrarySmokeTests",
                    dependencies: ["HTTPServer", "HTTPClient", "DBus", "BluetoothHCI", "USBLink", "Platform"]),
    ],
    swiftLanguageModes: [.v6]
)
