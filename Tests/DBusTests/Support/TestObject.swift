import Synchronization

@testable import DBusModel

/// A latch that async handlers wait on until the test opens it (a method that "never answers" in time).
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// The object the integration and registry tests export: methods with fixed signatures, a constant, a byte-array
/// value and a writable name.
final class TestObject: DBusObject {
    static let interface = "org.aiden.Test1"

    let gate = Gate()
    private let name = Mutex("initial")
    private let value = Mutex<[UInt8]>([0x01, 0x02])
    private let calls = Atomic<Int>(0)

    var callCount: Int { calls.load(ordering: .relaxed) }

    func setValue(_ bytes: [UInt8]) {
        value.withLock { $0 = bytes }
    }

    var interfaces: [DBusInterface] {
        [
            DBusInterface(
                Self.interface,
                methods: [
                    DBusMethod("Echo", inputs: "s", outputs: "s") { call in
                        self.calls.add(1, ordering: .relaxed)
                        return [call.body[0]]
                    },
                    DBusMethod("Add", inputs: "ii", outputs: "i") { call in
                        [.int32((call.body[0].int32Value ?? 0) &+ (call.body[1].int32Value ?? 0))]
                    },
                    DBusMethod("Fail", inputs: "", outputs: "") { _ throws(DBusError) in
                        throw .bluez(.notPermitted, "not now")
                    },
                    DBusMethod("WrongReply", inputs: "", outputs: "s") { _ in [.int32(1)] },
                    .async("Never", inputs: "", outputs: "") { [gate] _ in
                        await gate.wait()
                        return []
                    },
                    .async("Later", inputs: "s", outputs: "s") { call in
                        await Task.yield()
                        return [.string("later " + (call.body[0].stringValue ?? ""))]
                    },
                    // Whether the handler's task prefers an executor of the connection's own (it must: Swift's
                    // global executor would start libdispatch's 1 s monitor timer for good).
                    .async("Preference", inputs: "", outputs: "b") { _ in
                        await Task.yield()
                        return [.boolean(withUnsafeCurrentTask { $0?.unownedTaskExecutor } != nil)]
                    },
                ],
                properties: [
                    .constant("UUID", .string("12345678-1234-5678-1234-56789abcdef0")),
                    DBusProperty("Value", type: "ay", get: { .bytes(self.value.withLock { $0 }) }),
                    DBusProperty(
                        "Name", type: "s", get: { .string(self.name.withLock { $0 }) },
                        set: { newValue in self.name.withLock { $0 = newValue.stringValue ?? "" } }),
                    DBusProperty("Absent", type: "s", get: { nil }),
                ],
                signals: [DBusSignalDescription("Ping", arguments: "u")])
        ]
    }
}

/// A child object with one constant property, for ObjectManager tests.
struct LeafObject: DBusObject {
    let label: String

    var interfaces: [DBusInterface] {
        [DBusInterface("org.aiden.Leaf1", properties: [.constant("Label", .string(label))])]
    }
}
