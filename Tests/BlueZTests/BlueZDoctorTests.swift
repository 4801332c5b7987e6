import BlueZ
import BluetoothHCI
import BoardService
import DBusModel
import Dispatch
import Doctor
import Glibc
import NetworkAddress
import TestSupport
import Testing

/// `aiden-board doctor` for the bluez transport: the judgement table, and the looking on real sockets.
@Suite("BlueZ doctor", .serialized)
struct BlueZDoctorTests {
    static let address = BluetoothAddress("00:AA:01:00:12:34")
    static let up = HCIAdapter(name: "hci0", index: 0, address: address, isUp: true)
    static let ready = AdapterState(
        interfaces: BlueZNames.peripheralAdapterInterfaces, powered: true, address: "00:AA:01:00:12:34")

    @Test(arguments: [
        (
            Result<HCIAdapter, HCIAdapterError>.failure(.noBluetoothInKernel), BlueZDoctor.BusView?.none,
            BlueZDoctor.DaemonView?.none, DoctorFinding.Severity.problem, "no Bluetooth in this kernel"
        ),
        (.failure(.notFound("hci0")), nil, nil, .problem, "no adapter hci0"),
        (.success(up), .unreachable("NoServer"), nil, .problem, "system bus is not reachable"),
        (
            .success(up), .bluezNotRunning, nil, .problem,
            "adapter hci0 present (00:AA:01:00:12:34, up); bluetoothd is not running"
        ),
        (.success(up), .adapter(AdapterState()), nil, .problem, "does not list hci0"),
        (
            .success(up), .adapter(AdapterState(interfaces: [BlueZNames.adapter], powered: true)), nil, .problem,
            "no org.bluez.GattManager1, org.bluez.LEAdvertisingManager1 on hci0"
        ),
        (
            .success(up), .adapter(AdapterState(interfaces: BlueZNames.peripheralAdapterInterfaces, powered: false)),
            nil,
            .problem, "hci0 is powered off"
        ),
        (.success(up), .adapter(ready), nil, .info, "aiden-board is not running"),
        (.failure(.notPermitted), .adapter(ready), nil, .info, "adapter facts unavailable"),
        (
            .success(up), .adapter(ready),
            BlueZDoctor.DaemonView(
                gattRegistered: false, advertising: false, wakeSubscriber: false, problem: "adapter hci0 is powered off"
            ),
            .problem, "not registered with bluetoothd: adapter hci0 is powered off"
        ),
        (
            .success(up), .adapter(ready),
            BlueZDoctor.DaemonView(gattRegistered: true, advertising: true, wakeSubscriber: true, problem: nil),
            .ok, "registered and advertised, phone subscribed: yes"
        ),
    ])
    func judgement(
        hci: Result<HCIAdapter, HCIAdapterError>, bus: BlueZDoctor.BusView?, daemon: BlueZDoctor.DaemonView?,
        severity: DoctorFinding.Severity, phrase: String
    ) {
        let finding = BlueZDoctor.evaluate(adapter: "hci0", hci: hci, bus: bus, daemon: daemon)
        #expect(finding.severity == severity, "\(finding)")
        #expect(finding.message.contains(phrase), "\(finding)")
        #expect((finding.fix != nil) == (severity == .problem), "every problem comes with a fix")
    }

    @Test func kernelFactsAreConsistent() {
        // On a machine without Bluetooth every question gets the same clear answer; with it, hci99 is absent.
        switch HCIAdapter.first() {
        case .failure(.noBluetoothInKernel):
            #expect(HCIAdapter.named("hci0") == .failure(.noBluetoothInKernel))
            #expect("\(HCIAdapterError.noBluetoothInKernel)".contains("no Bluetooth in this kernel"))
        case .failure(.notPermitted):
            #expect(HCIAdapter.named("hci0") == .failure(.notPermitted))
        default:
            #expect(HCIAdapter.named("hci99") == .failure(.notFound("hci99")))
        }
    }

    @Test(.enabled(if: FakeBluetoothd.available, FakeBluetoothd.skipMessage))
    func looksAtBluetoothdOnTheBus() async throws {
        #expect(
            await BlueZDoctor.busView(adapter: "hci0", address: .address("unix:path=/nonexistent/bus"))
                .isUnreachable)
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        #expect(await BlueZDoctor.busView(adapter: "hci0", address: .address(bus.address)) == .bluezNotRunning)
        let fake = try await FakeBluetoothd.start(bus: bus, role: "board")
        defer { fake.stop() }
        try await eventually("managers on hci0") {
            // The fake adds GattManager1 and LEAdvertisingManager1 a moment after the adapter, like bluetoothd.
            await FakeBluetoothdProbe.ready(bus)
        }
        let view = await BlueZDoctor.busView(adapter: "hci0", address: .address(bus.address))
        guard case .adapter(let state) = view else {
            Issue.record("expected the adapter, got \(view)")
            return
        }
        #expect(state.isPresent && state.powered && state.address == "00:AA:01:00:12:34")
        #expect(await BlueZDoctor.busView(adapter: "hci7", address: .address(bus.address)) == .adapter(AdapterState()))
    }

    @Test func readsTheDaemonsStatusOnTheAgentSocket() throws {
        let path = "/tmp/aiden-doctor-\(getpid()).sock"
        let body =
            #"{"status":"ok","bluetooth":{"adapter":"hci0","gatt_registered":true,"advertising":true,"#
            + #""wake_subscriber":false,"problem":null}}"#
        let server = try CannedHTTPServer(path: path, body: body)
        defer { server.stop() }
        #expect(
            BlueZDoctor.daemonView(agentSocket: path)
                == BlueZDoctor.DaemonView(gattRegistered: true, advertising: true, wakeSubscriber: false, problem: nil))
        #expect(server.requests.first?.hasPrefix("GET /v1/status HTTP/1.1\r\nHost: localhost\r\n") == true)
        #expect(BlueZDoctor.daemonView(agentSocket: "/tmp/aiden-doctor-nobody.sock") == nil)
    }
}

extension BlueZDoctor.BusView {
    var isUnreachable: Bool { if case .unreachable = self { true } else { false } }
}

/// Asks the private bus whether the fake's adapter has its managers yet.
enum FakeBluetoothdProbe {
    static func ready(_ bus: PrivateBus) async -> Bool {
        guard case .adapter(let state) = await BlueZDoctor.busView(adapter: "hci0", address: .address(bus.address))
        else { return false }
        return state.interfaces.isSuperset(of: BlueZNames.peripheralAdapterInterfaces)
    }
}

/// A pthread mutex, to keep this file free of Foundation.
final class NSLockLike: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}

/// A Unix-socket server that answers every connection with one fixed HTTP/1.0 JSON response.
final class CannedHTTPServer: @unchecked Sendable {
    private let fd: Int32
    private let path: String
    private let lock = NSLockLike()
    private var received: [String] = []

    var requests: [String] { lock.locked { received } }

    init(path: String, body: String) throws {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(fd, 4) == 0 else {
            throw PrivateBus.StartError(description: "cannot listen on \(path)")
        }
        let response = "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + body
        let listener = fd
        DispatchQueue.global().async { [self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 1024)
                let count = read(client, &buffer, buffer.count)
                let text = String(decoding: buffer[0..<max(count, 0)], as: UTF8.self)
                lock.locked { received.append(text) }
                var bytes = Array(response.utf8)
                _ = bytes.withUnsafeMutableBytes { write(client, $0.baseAddress, $0.count) }
                close(client)
            }
        }
    }

    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        unlink(path)
    }
}
