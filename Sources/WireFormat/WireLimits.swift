/// The sizes that bound every answer about tasks, named once: the board enforces them, and aidenctl must
/// accept the largest answer they allow (a full task list), so the two cannot drift apart.
package enum WireLimits {
    /// One snapshot's JSON at most, in bytes (measured with `/` escaped, the longer of the two forms).
    package static let maxSnapshotBytes = 4096
    /// The most tasks a board keeps.
    package static let maxTasks = 256

    /// The largest `GET /v1/tasks` answer, the largest answer on the agent socket:
    /// `{"status":"ok","tasks":[` and `]}` around `maxTasks` snapshots at `maxSnapshotBytes` and the commas
    /// between them. 1,048,857 bytes: a little over 1 MiB.
    package static let maxTaskListBytes =
        #"{"status":"ok","tasks":["#.utf8.count + maxTasks * maxSnapshotBytes + (maxTasks - 1) + "]}".utf8.count
}
