import Doctor
import Foundation
import NetworkAddress
import Synchronization
import Testing

/// What both doctors share: the line they print, the exit status, the host's interfaces, the state
/// directory's access, and another network's addresses in the ECM subnet.
@Suite struct DoctorTests {
    @Test func findingsPrintAsOneLineAndDecideTheExitStatus() {
        let ok = DoctorFinding.ok("aidenboard0 is up")
        let info = DoctorFinding.info("no session bus", fix: "log in")
        let problem = DoctorFinding.problem("no bond", fix: "pair")
        #expect(ok.description == "ok: aidenboard0 is up")
        #expect(info.description == "info: no session bus (fix: log in)")
        #expect(problem.description == "problem: no bond (fix: pair)")
        #expect(DoctorFinding.exitStatus([]) == 0)
        #expect(DoctorFinding.exitStatus([ok, info]) == 0)
        #expect(DoctorFinding.exitStatus([ok, problem, info]) == 1)
    }

    /// A finding quotes what the host said; a line feed, an escape sequence or a bidi override in it is
    /// printed escaped, so the finding stays one line that cannot drive the terminal.
    @Test func aFindingQuotingTheHostStaysOneLine() {
        let problem = DoctorFinding.problem("bluetoothd said: no\n\u{1B}[2Jok\u{202E}", fix: "restart\r it")
        #expect(problem.description == #"problem: bluetoothd said: no\n\u{1b}[2Jok\u{202e} (fix: restart\r it)"#)
    }

    @Test func thisHostsLoopbackIsAnInterfaceWithItsAddress() throws {
        let interfaces = LocalInterfaces.current()
        let loopback = try #require(interfaces.link(named: "lo"))
        #expect(loopback.isUp)
        #expect(
            interfaces.entries(on: "lo").contains { $0.address == IPAddress(v4: 127, 0, 0, 1) && $0.prefixLength == 8 })
        #expect(interfaces.interface(holding: IPAddress(v4: 127, 0, 0, 1))?.name == "lo")
        #expect(interfaces.link(named: "no-such-if0") == nil)
    }

    @Test func linksDefaultToTheAddressedInterfaces() {
        let entry = LocalInterfaces.Entry(
            name: "usb1", address: IPAddress(v4: 192, 168, 42, 129), prefixLength: 24, isUp: true, isRunning: false)
        let interfaces = LocalInterfaces(entries: [entry, entry])
        #expect(interfaces.links == [.init(name: "usb1", isUp: true, isRunning: false)])
        #expect(entry.subnet.description == "192.168.42.0/24")
    }

    @Test func aStateDirectoryIsWritableCreatableOrDenied() throws {
        let scratch = "/tmp/aiden-doctor-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        #expect(DirectoryAccess.check(scratch) == .writable)
        #expect(DirectoryAccess.check(scratch + "/state") == .creatable)
        #expect(DirectoryAccess.check("/nonexistent/aiden/state") == .denied("No such file or directory"))
        #expect(
            DirectoryAccess.denied("Permission denied").finding(stateDirectory: "/s", fix: "chown it")
                == .problem("state directory /s is not writable: Permission denied", fix: "chown it"))
        #expect(
            DirectoryAccess.writable.finding(stateDirectory: "/s", fix: "x") == .ok("state directory /s is writable"))
        #expect(DirectoryAccess.creatable.finding(stateDirectory: "/s", fix: "x").severity == .info)
    }

    @Test func addressesInsideTheSubnetOnOtherInterfacesCollide() throws {
        func entry(_ name: String, _ address: String, _ prefix: Int) -> LocalInterfaces.Entry {
            LocalInterfaces.Entry(
                name: name, address: IPAddress(address)!, prefixLength: prefix, isUp: true, isRunning: true)
        }
        let interfaces = LocalInterfaces(entries: [
            entry("aidenboard0", "192.168.42.2", 24), entry("lo", "127.0.0.1", 8), entry("usb1", "192.168.42.129", 24),
            entry("eth0", "192.168.0.5", 16), entry("wlan0", "192.168.43.9", 24), entry("eth0", "fe80::1", 64),
        ])
        let wording = SubnetCollisions.Wording(link: "the board link", relocation: "[board] url")
        let findings = SubnetCollisions.addresses(
            interfaces, subnet: try Subnet("192.168.42.0/24"), linkInterfaces: ["aidenboard0"], wording: wording)
        #expect(findings.count == 1, "only usb1's address is inside: \(findings)")
        #expect(findings.first?.message.hasPrefix("usb1 has 192.168.42.129/24, inside the ECM subnet") == true)
        #expect(findings.first?.fix?.hasSuffix("([board] url)") == true)
    }

    @Test func blockingRunsAsyncWorkToItsEnd() {
        let value = Blocking.run { () async -> Int in
            try? await Task.sleep(for: .milliseconds(1))
            return 42
        }
        #expect(value == 42)
    }

    /// With every thread of Swift's shared pool blocked (tests that wait, a doctor called from one), the work still
    /// runs: it has an executor of its own.
    @Test func blockingNeedsNoThreadOfTheSharedPool() {
        let release = DispatchSemaphore(value: 0)
        let blockers = ProcessInfo.processInfo.activeProcessorCount + 1
        for _ in 0..<blockers { Task.detached { release.wait() } }
        let answered = DispatchSemaphore(value: 0)
        let value = Mutex<Int?>(nil)
        DispatchQueue.global().async {
            let result = Blocking.run { () async -> Int in
                try? await Task.sleep(for: .milliseconds(1))
                return 42
            }
            value.withLock { $0 = result }
            answered.signal()
        }
        let finished = answered.wait(timeout: .now() + 10) == .success
        for _ in 0..<blockers { release.signal() }
        #expect(finished && value.withLock { $0 } == 42)
    }
}
