import Foundation

/// Starts a program with `posix_spawn` rather than `Process`, for servers the tests start and leave running
/// (tmux, a Wayland desktop): `Process` would hand them the descriptor by which it learns that its child ended,
/// and the test's threads block nearly every signal, a mask a child inherits (a server that reaps what it starts
/// on SIGCHLD, or waits on signals, then stops answering). Here the child gets an empty signal mask, exactly
/// `environment`, stdin from /dev/null and stdout and stderr into `log`; `newGroup` puts it in a process group
/// of its own (its pid), so one `kill(-pid, …)` ends it and what it started. Returns its pid.
func cleanSpawn(_ argv: [String], environment: [String], log: String, newGroup: Bool = false) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var flags = Int32(POSIX_SPAWN_SETSIGMASK)
    if newGroup {
        posix_spawnattr_setpgroup(&attributes, 0)
        flags |= Int32(POSIX_SPAWN_SETPGROUP)
    }
    posix_spawnattr_setflags(&attributes, Int16(flags))
    let words = argv.map { strdup($0) } + [nil]
    let variables = environment.map { strdup($0) } + [nil]
    defer { (words + variables).forEach { free($0) } }
    var pid = pid_t()
    let failure = posix_spawn(&pid, argv[0], &actions, &attributes, words, variables)
    guard failure == 0 else { throw IntegrationError("\(argv[0]): posix_spawn: \(String(cString: strerror(failure)))") }
    return pid
}

/// Ends a process group `cleanSpawn(…, newGroup: true)` started (SIGKILL to all of it) and reaps its leader; sets
/// `group` to 0, so a second call does nothing.
func endGroup(_ group: inout pid_t) {
    guard group > 0 else { return }
    kill(-group, SIGKILL)
    var status: Int32 = 0
    waitpid(group, &status, 0)
    group = 0
}
