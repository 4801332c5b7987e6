/// A failed `AtomicFile.write`: the call that failed, and whether the new content had already replaced the old.
package struct AtomicWriteError: Error, Equatable, Sendable, CustomStringConvertible {
    package var failure: FileSystemError
    /// True when only the final directory sync failed: the file holds the new content now (the running
    /// process and every reader see it), and whether it survives a power loss is unknown. False: nothing
    /// changed, the old content is still in place.
    package var replaced: Bool

    package init(_ failure: FileSystemError, replaced: Bool) {
        self.failure = failure
        self.replaced = replaced
    }

    package var description: String {
        replaced
            ? "\(failure), after the new content replaced the old: in place, not known to be durable" : "\(failure)"
    }
}
