import Foundation
import TestSupport
import Testing

/// The syscall-level privacy check (docs/fault-suite.md): aiden-board and aiden-phone each run under
/// `strace -f -e trace=connect,bind,sendto,sendmsg,sendmmsg` through a whole loopback flow (start, a burst of
/// updates, a handoff, needs_app, an end), and every socket address either daemon names is loopback, the
/// ECM subnet, a Unix socket or netlink (`StraceLog`). The trace must have seen the flow's own traffic (the
/// phone's fetches, the board's Wakes), so a trace that caught nothing fails too.
@Suite(.serialized, .enabled(if: Strace.path != nil, "strace is not installed (scripts/packages.txt)"))
struct SyscallPrivacyTests {
    @Test func bothDaemonsTalkOnlyToLoopbackTheECMSubnetAndUnixSockets() throws {
        let wakePort = try freeLoopbackPort()
        let board = try BoardProcess(coalesceMilliseconds: 100, wakeTarget: "127.0.0.1:\(wakePort)")
        let phone = try PhoneProcess(boardURL: "http://127.0.0.1:\(board.port)", wakePort: wakePort)
        let boardTrace = board.scratch.path + "/board.strace"
        let phoneTrace = phone.scratch.path + "/phone.strace"
        try board.start(wrapper: Strace.wrapper(output: boardTrace))
        defer { board.stop() }
        try phone.start(launcher: Strace.wrapper(output: phoneTrace))
        defer { phone.stop() }

        let start = try board.aidenctl(["task", "start", "--title", "Private", "--phone-id", "it-phone"])
        #expect(start.status == 0, "\(start.error)")
        let id = start.lastLine
        for index in 1...10 {
            _ = try board.aidenctl([
                "task", "update", "--id", id, "--step", "Step \(index)", "--progress", "0.\(index - 1)",
            ])
        }
        _ = try board.aidenctl([
            "task", "update", "--id", id, "--phase", "waiting_user", "--action", "request_user_input",
        ])
        _ = try board.aidenctl(["task", "update", "--id", id, "--status", "needs_app"])
        _ = try board.aidenctl(["task", "end", "--id", id, "--status", "completed"])
        #expect(phone.waitForCard { $0["state"] as? String == "completed" }, "\(phone.rawLines.suffix(5))")

        // Each daemon's own shutdown is traced too.
        Strace.end(phone.process)
        Strace.end(board.process)

        let boardLog = StraceLog(try String(contentsOfFile: boardTrace, encoding: .utf8))
        let phoneLog = StraceLog(try String(contentsOfFile: phoneTrace, encoding: .utf8))
        FaultSuite.report(
            "syscall-privacy",
            [
                "board-calls": "\(boardLog.calls)", "board-addresses": "\(boardLog.addresses.count)",
                "board-families": "\(Set(boardLog.addresses.map(\.family)).sorted())",
                "phone-calls": "\(phoneLog.calls)", "phone-addresses": "\(phoneLog.addresses.count)",
                "phone-families": "\(Set(phoneLog.addresses.map(\.family)).sorted())",
                "outsiders": "\(boardLog.outsiders.count + phoneLog.outsiders.count)",
            ])
        #expect(boardLog.outsiders.isEmpty, "aiden-board: \(boardLog.outsiders)")
        #expect(phoneLog.outsiders.isEmpty, "aiden-phone: \(phoneLog.outsiders)")
        // The trace saw the flow: the board's Wakes to the phone, the phone's requests to the board.
        #expect(
            boardLog.addresses.contains { $0.call == "sendto" && $0.host == "127.0.0.1" && $0.port == Int(wakePort) })
        #expect(
            boardLog.addresses.contains { $0.call == "bind" && $0.host == "127.0.0.1" && $0.port == Int(board.port) })
        #expect(
            phoneLog.addresses.contains { $0.call == "connect" && $0.host == "127.0.0.1" && $0.port == Int(board.port) }
        )
        #expect(phoneLog.addresses.contains { $0.call == "bind" && $0.host == "127.0.0.1" && $0.port == Int(wakePort) })
    }

    /// The reading itself: an address anywhere else is caught, data that looks like an address is not one.
    @Test func theLogReaderFlagsEveryOtherAddress() {
        let log = StraceLog(
            """
            10 connect(5, {sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
            10 connect(6, {sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr("192.168.42.1")}, 16) = 0
            11 sendto(7, "{sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr(\\"8.8.8.8\\")}", 60, 0, NULL, 0) = 60
            11 connect(8, {sa_family=AF_UNIX, sun_path="/run/aiden/agent.sock"}, 110) = 0
            12 bind(9, {sa_family=AF_NETLINK, nl_pad=0x0, nl_pid=0, nl_groups=00000000}, 12) = 0
            12 sendto(3, "x", 1, 0, {sa_family=AF_INET6, sin6_port=htons(9), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 1
            13 connect(4, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("93.184.216.34")}, 16 <unfinished ...>
            13 sendto(4, "x", 1, 0, {sa_family=AF_INET6, sin6_port=htons(53), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:4860::8888", &sin6_addr), sin6_scope_id=0}, 28) = 1
            14 connect(4, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("192.168.43.1")}, 16) = 0
            15 sendmsg(5, {msg_name={sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("10.0.0.1")}, msg_namelen=16}, 0) = 1
            16 connect(5, {sa_family=AF_BLUETOOTH, ...}, 10) = 0
            """)
        #expect(log.calls == 11)
        #expect(
            log.outsiders.map(\.description) == [
                "connect AF_INET 93.184.216.34:443", "sendto AF_INET6 2001:4860::8888:53",
                "connect AF_INET 192.168.43.1:80", "sendmsg AF_INET 10.0.0.1:9", "connect AF_BLUETOOTH ",
            ])
        #expect(log.addresses.count == 10, "the quoted look-alike in the data is not an address")
    }
}

/// strace, for the syscall check and the fsync stall.
enum Strace {
    static let path: String? = ["/usr/bin/strace", "/bin/strace"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Runs a program under strace with the given filter (`--seccomp-bpf`: only the traced calls stop the
    /// program), following threads and children, writing to `output`.
    static func wrapper(
        output: String, trace: String = "connect,bind,sendto,sendmsg,sendmmsg", extra: [String] = []
    ) -> [String] {
        [path ?? "strace", "-f", "--seccomp-bpf", "-qq", "-e", "signal=none", "-s", "32", "-e", "trace=\(trace)"]
            + extra + ["-o", output, "--"]
    }

    /// Ends the program strace runs in `process` with `signal` and waits (bounded) until strace has followed it
    /// out. The signal goes to the program itself: strace killed by a signal is not reaped by Foundation's
    /// `Process` here, so its `waitUntilExit` would never return.
    static func end(_ process: Process?, signal: Int32 = SIGTERM) {
        guard let process, process.isRunning else { return }
        let pid = process.processIdentifier
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8),
            let child = text.split(separator: " ").first.flatMap({ Int32($0) })
        else { return }
        kill(child, signal)
        let deadline = Date().addingTimeInterval(15)
        while process.isRunning && Date() < deadline { usleep(10_000) }
    }
}
