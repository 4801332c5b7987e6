import FoundationEssentials
import LiveActivity
import Platform
import WakeProtocol

/// The board's state directory (docs/protocol.md §7.1): `wake.json` (epoch and sequence high-water mark)
/// and `tasks.json` (tasks, idempotency records, transition ring), each replaced atomically.
///
/// Loading never silently drops state: a file that cannot be read or decoded is reported and moved
/// aside as `<name>.corrupt-<unix time>` for a person to inspect, and the board starts from what is left.
package struct BoardStateDirectory: Sendable {
    package let path: String
    private let fileSystem: any DurableFileSystem
    private let wakeFile: AtomicFile
    private let tasksFile: AtomicFile

    package init(path: String, fileSystem: any DurableFileSystem = POSIXFileSystem()) {
        self.path = path
        self.fileSystem = fileSystem
        wakeFile = AtomicFile(path: path + "/wake.json", fileSystem: fileSystem)
        tasksFile = AtomicFile(path: path + "/tasks.json", fileSystem: fileSystem)
    }

    /// The lock file: whoever holds its lock owns the directory (`lock()`).
    package var lockPath: String { path + "/board.lock" }

    /// Creates the directory if needed and takes its lock, for as long as the returned value lives. Two
    /// boards on one directory would interleave their writes of `tasks.json` and hand out the same Wake
    /// sequences from the same reserved block, so the second is refused, naming the first when it can.
    /// Taken on the real file system whatever `fileSystem` is (flock(2) is a process's, not a file's, state).
    package func lock() throws(BoardStateError) -> FileLock {
        do {
            try fileSystem.createDirectory(at: path, permissions: 0o700)
        } catch {
            throw BoardStateError(path: path, message: "cannot create the state directory: \(error)")
        }
        do {
            return try FileLock.acquire(lockPath)
        } catch {
            switch error {
            case let .held(_, holder):
                let who = holder.map { "another aiden-board (pid \($0))" } ?? "another aiden-board"
                throw BoardStateError(
                    path: path,
                    message: "in use by \(who), which holds the lock \(lockPath); stop it first, or give this one "
                        + "another [state] directory")
            case let .failed(failure):
                throw BoardStateError(path: path, message: "cannot take the lock \(lockPath): \(failure)")
            }
        }
    }

    /// What was found on start.
    package struct Loaded: Sendable {
        package var wake: WakeState
        package var store: TaskStore
        /// True when this start created a new epoch (new or wiped directory, or a corrupt wake file).
        package var isNewEpoch: Bool
        /// Problems found and what was done about them, for the log.
        package var notes: [String]
    }

    /// Reads (or creates) the state. A new epoch is made durable before this returns, so no Wake
    /// can ever go out under an epoch that a restart would not find again; and it is none of the epochs the
    /// directory held before, as far as what is left of them tells (a `wake.json` that no longer decodes, the
    /// ring generation in `tasks.json`), so a phone that kept the old epoch does not take the new Wakes for old.
    package func load(now: Date, using generator: inout some RandomNumberGenerator) throws(BoardStateError) -> Loaded {
        do {
            try fileSystem.createDirectory(at: path, permissions: 0o700)
        } catch {
            throw BoardStateError(path: path, message: "cannot create the state directory: \(error)")
        }
        var notes: [String] = []
        var rejectedWake: [UInt8]?
        let storedWake = read(wakeFile, as: WakeState.self, now: now, notes: &notes, rejected: &rejectedWake)
        var unused: [UInt8]?
        let storedTasks = read(tasksFile, as: TaskStore.self, now: now, notes: &notes, rejected: &unused)
        var isNewEpoch = false
        var wake: WakeState
        if let storedWake {
            wake = storedWake
        } else {
            let previous = Set(
                [
                    rejectedWake.flatMap(WakeState.epochNamed(in:)),
                    storedTasks.flatMap { Self.epoch(ofGeneration: $0.transitions.generation) },
                ]
                .compactMap { $0 })
            wake = WakeState.fresh(excluding: previous, using: &generator)
            isNewEpoch = true
            if !previous.isEmpty {
                let old = previous.sorted().map(String.init).joined(separator: ", ")
                notes.append("new epoch \(wake.epoch), apart from the epoch this directory held before (\(old))")
            }
            let bytes = try Self.encode(wake)
            do {
                try wakeFile.write(bytes)
            } catch {
                throw BoardStateError(path: wakeFile.path, message: "cannot write the new epoch: \(error)")
            }
        }
        var store = storedTasks ?? TaskStore(generation: Self.generation(epoch: wake.epoch, using: &generator))
        if isNewEpoch && store.count + store.transitions.events.count > 0 {
            // Tasks survived but the sequence space was reset: the ring starts a new generation so
            // phones re-read it from the start instead of trusting their old cursor.
            store.resetTransitions(generation: Self.generation(epoch: wake.epoch, using: &generator))
            notes.append("new epoch \(wake.epoch) with existing tasks: transition ring reset")
        }
        return Loaded(wake: wake, store: store, isNewEpoch: isNewEpoch, notes: notes)
    }

    package func saveWake(_ state: WakeState) throws(BoardStateError) {
        let bytes = try Self.encode(state)
        do {
            try wakeFile.write(bytes)
        } catch {
            throw BoardStateError(path: wakeFile.path, message: "\(error)", inPlace: error.replaced)
        }
    }

    /// Writes `store` durably. `encoder` keeps what it encoded for the next write (`TaskStoreEncoder`: the same
    /// bytes, without encoding every task again).
    package func saveTasks(_ store: TaskStore, encoder: inout TaskStoreEncoder) throws(BoardStateError) {
        let bytes: [UInt8]
        do {
            bytes = try encoder.encode(store)
        } catch {
            throw BoardStateError(path: tasksFile.path, message: "cannot encode state: \(error)")
        }
        try write(bytes)
    }

    private func write(_ bytes: [UInt8]) throws(BoardStateError) {
        do {
            try tasksFile.write(bytes)
        } catch {
            throw BoardStateError(path: tasksFile.path, message: "\(error)", inPlace: error.replaced)
        }
    }

    /// A ring generation that differs across epochs and across wipes of the same epoch number.
    static func generation(epoch: UInt16, using generator: inout some RandomNumberGenerator) -> String {
        let suffix = String(generator.next() & 0xFFFF_FFFF, radix: 16)
        return "\(epoch)-\(String(repeating: "0", count: 8 - suffix.count))\(suffix)"
    }

    /// The epoch a ring generation was made for (`4660-1a2b3c4d` → 4660); nil when it has another form.
    static func epoch(ofGeneration generation: String) -> UInt16? {
        guard let dash = generation.firstIndex(of: "-"), let epoch = UInt16(generation[..<dash]), epoch != 0 else {
            return nil
        }
        return epoch
    }

    /// The decoded file; nil when it does not exist or cannot be used. A file that cannot be used is moved
    /// aside (and said so in `notes`); its bytes, when they could be read, are left in `rejected`.
    private func read<T: Decodable>(
        _ file: AtomicFile, as type: T.Type, now: Date, notes: inout [String], rejected: inout [UInt8]?
    ) -> T? {
        let bytes: [UInt8]
        do {
            guard let content = try file.read() else { return nil }
            bytes = content
        } catch {
            notes.append(quarantine(file, now: now, reason: "unreadable (\(error))"))
            return nil
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            rejected = bytes
            notes.append(quarantine(file, now: now, reason: "not valid (\(Self.describe(error)))"))
            return nil
        }
    }

    /// Moves a bad file aside; says what happened (or that even that failed, and how far it got).
    private func quarantine(_ file: AtomicFile, now: Date, reason: String) -> String {
        let aside = "\(file.path).corrupt-\(Int(now.timeIntervalSince1970))"
        do {
            try fileSystem.rename(from: file.path, to: aside)
        } catch {
            return "\(file.path) was \(reason), and could not be moved aside (\(error)); starting without it"
        }
        do {
            try fileSystem.synchronizeDirectory(at: path)
        } catch {
            return "\(file.path) was \(reason); moved to \(aside), though the move is not known to be durable "
                + "(\(error)); starting without it"
        }
        return "\(file.path) was \(reason); moved to \(aside), starting without it"
    }

    private static func encode(_ value: some Encodable) throws(BoardStateError) -> [UInt8] {
        do {
            return Array(try LiveActivityJSON.makeEncoder().encode(value))
        } catch {
            throw BoardStateError(path: "", message: "cannot encode state: \(error)")
        }
    }

    private static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        switch decoding {
        case let .dataCorrupted(context), let .keyNotFound(_, context), let .typeMismatch(_, context),
            let .valueNotFound(_, context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// The state directory could not be used; `description` names the file and the reason.
package struct BoardStateError: Error, Equatable, Sendable, CustomStringConvertible {
    package let path: String
    package let message: String
    /// The write failed after the new content replaced the old (only the directory sync failed): the file holds
    /// the new state, which may or may not survive a power loss. False: the file is as it was.
    package let inPlace: Bool

    package init(path: String, message: String, inPlace: Bool = false) {
        self.path = path
        self.message = message
        self.inPlace = inPlace
    }

    package var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
