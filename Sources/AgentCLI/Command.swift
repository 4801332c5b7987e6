import CommandLineSyntax
import WireFormat

/// What one aidenctl invocation asks for, validated but not yet run.
package enum Command: Sendable, Equatable {
    /// Print the usage of this command (exit 0).
    case help(HelpTopic)
    /// Print aidenctl's version (exit 0).
    case version
    case taskStart(Start)
    /// Start a task, run a command, end the task as the command ended: the executable's `TaskRunner` does it.
    case taskRun(Run)
    case taskUpdate(Update)
    /// News without a change: keeps the task from going stale or being abandoned.
    case taskHeartbeat(requestID: String)
    case taskEnd(End)
    case taskList
    case taskShow(requestID: String)
    /// Wait until the person stops or answers the task, or it ends: the executable's `TaskWaiter` does it.
    case taskWait(Wait)
    /// Print the transition ring's events; with `follow`, keep polling for new ones.
    case events(Events)
    case status
    /// Serve the MCP tools on stdio: the executable's loop feeds `MCPServer`.
    case mcp
    /// A coding agent's hook event to its session's task: the executable's `HookShell` feeds `HookRunner`.
    case hook(Hook)
    /// Print the completion script for a shell (exit 0), made from the parser's own tables.
    case completion(CompletionShell)

    /// The fields of a start; nil leaves a field to the daemon's default.
    package struct Start: Sendable, Equatable {
        package var title: String
        package var requestID: String?
        package var phoneID: String?
        package var step: String?
        package var phase: TaskPhase?
        package var progress: Double?
        package var status: TaskStatus?
        package var action: String?
        package var target: String?
        package var app: String?
        package var tool: String?
        /// `--tool-status`: `tool_status`, the card's tool line.
        package var toolStatus: String?
        /// `--locale`: a BCP 47 tag (the board checks it).
        package var locale: String?
        package var error: String?
        package var showsProgress: Bool?
        package var canStop: Bool?
        package var requiresApp: Bool?
        /// With no news from the agent for this long the board marks the task stale (nil: its default).
        package var staleAfterSeconds: UInt64?
        /// With no news for this long the board ends the task as failed (nil: its default).
        package var abandonAfterSeconds: UInt64?
        /// `--idempotency-key` or `$AIDEN_IDEMPOTENCY_KEY`; see `idempotencyKey(fallback:)`.
        package var idempotencyKey: String?

        package init(
            title: String, requestID: String? = nil, phoneID: String? = nil, step: String? = nil,
            phase: TaskPhase? = nil, progress: Double? = nil, status: TaskStatus? = nil, action: String? = nil,
            target: String? = nil, app: String? = nil, tool: String? = nil, error: String? = nil,
            showsProgress: Bool? = nil, canStop: Bool? = nil, requiresApp: Bool? = nil,
            staleAfterSeconds: UInt64? = nil, abandonAfterSeconds: UInt64? = nil, idempotencyKey: String? = nil
        ) {
            self.title = title
            self.requestID = requestID
            self.phoneID = phoneID
            self.step = step
            self.phase = phase
            self.progress = progress
            self.status = status
            self.action = action
            self.target = target
            self.app = app
            self.tool = tool
            self.error = error
            self.showsProgress = showsProgress
            self.canStop = canStop
            self.requiresApp = requiresApp
            self.staleAfterSeconds = staleAfterSeconds
            self.abandonAfterSeconds = abandonAfterSeconds
            self.idempotencyKey = idempotencyKey
        }

        /// The key the start is sent with: the one given; else, with a request id R, `start:R`, so that
        /// running the same start again returns the same task; else `fallback` (fresh per invocation).
        package func idempotencyKey(fallback: String) -> String {
            idempotencyKey ?? requestID.map { Self.derivedKeyPrefix + $0 } ?? fallback
        }

        /// `start:` + the request id: the key clients derive for a start with a request id and no key.
        package static let derivedKeyPrefix = "start:"
    }

    /// `task run`: a start, the command to run (its program first), and whether its stdout reports progress.
    package struct Run: Sendable, Equatable {
        package var start: Start
        package var command: [String]
        package var progressFromStdout: Bool

        package init(start: Start, command: [String], progressFromStdout: Bool = false) {
            self.start = start
            self.command = command
            self.progressFromStdout = progressFromStdout
        }
    }

    /// Only the fields given change; an empty string clears a text field.
    package struct Update: Sendable, Equatable {
        package var requestID: String
        package var step: String?
        package var phase: TaskPhase?
        package var action: String?
        package var target: String?
        package var app: String?
        package var tool: String?
        package var toolStatus: String?
        package var locale: String?
        package var progress: Double?
        package var status: TaskStatus?
        package var expectedRevision: UInt64?
        package var title: String?
        package var phoneID: String?
        package var error: String?
        package var showsProgress: Bool?
        package var canStop: Bool?
        package var requiresApp: Bool?
        package var staleAfterSeconds: UInt64?
        package var abandonAfterSeconds: UInt64?
        package var idempotencyKey: String?

        package init(
            requestID: String, step: String? = nil, phase: TaskPhase? = nil, action: String? = nil,
            target: String? = nil, app: String? = nil, tool: String? = nil, progress: Double? = nil,
            status: TaskStatus? = nil, expectedRevision: UInt64? = nil, title: String? = nil, phoneID: String? = nil,
            error: String? = nil, showsProgress: Bool? = nil, canStop: Bool? = nil, requiresApp: Bool? = nil,
            staleAfterSeconds: UInt64? = nil, abandonAfterSeconds: UInt64? = nil, idempotencyKey: String? = nil
        ) {
            self.requestID = requestID
            self.step = step
            self.phase = phase
            self.action = action
            self.target = target
            self.app = app
            self.tool = tool
            self.progress = progress
            self.status = status
            self.expectedRevision = expectedRevision
            self.title = title
            self.phoneID = phoneID
            self.error = error
            self.showsProgress = showsProgress
            self.canStop = canStop
            self.requiresApp = requiresApp
            self.staleAfterSeconds = staleAfterSeconds
            self.abandonAfterSeconds = abandonAfterSeconds
            self.idempotencyKey = idempotencyKey
        }
    }

    package struct End: Sendable, Equatable {
        package var requestID: String
        package var status: TaskStatus
        package var error: String?
        /// `--dismiss`: seconds the ended card stays (`immediate` is 0; nil: `default`, the board's retention).
        package var dismissAfterSeconds: UInt64?
        package var expectedRevision: UInt64?
        package var idempotencyKey: String?

        package init(
            requestID: String, status: TaskStatus, error: String? = nil, dismissAfterSeconds: UInt64? = nil,
            expectedRevision: UInt64? = nil, idempotencyKey: String? = nil
        ) {
            self.requestID = requestID
            self.status = status
            self.error = error
            self.dismissAfterSeconds = dismissAfterSeconds
            self.expectedRevision = expectedRevision
            self.idempotencyKey = idempotencyKey
        }
    }

    /// `task wait`: what to wait for on which task, for how long at most (nil: as long as it takes).
    package struct Wait: Sendable, Equatable {
        package var requestID: String
        package var target: WaitTarget
        package var timeoutSeconds: UInt64?

        package init(requestID: String, target: WaitTarget, timeoutSeconds: UInt64? = nil) {
            self.requestID = requestID
            self.target = target
            self.timeoutSeconds = timeoutSeconds
        }
    }

    /// `hook claude|codex`: whose event, the Codex event given as the argument (Claude Code's comes on stdin), and
    /// how long a permission request waits for the person's answer before Claude Code asks them itself.
    package struct Hook: Sendable, Equatable {
        package enum Agent: String, Sendable, Equatable, CaseIterable {
            case claude
            case codex
        }

        package var agent: Agent
        package var payload: String?
        package var timeoutSeconds: UInt64

        /// Below Claude Code's own limit for a hook (60 s unless its settings say otherwise), so the hook
        /// answers before it is killed and Claude Code falls back to its own prompt.
        package static let defaultTimeoutSeconds: UInt64 = 50

        package init(agent: Agent, payload: String? = nil, timeoutSeconds: UInt64 = Hook.defaultTimeoutSeconds) {
            self.agent = agent
            self.payload = payload
            self.timeoutSeconds = timeoutSeconds
        }
    }

    /// `events`: from the cursor `since` (0: every event the board keeps), once or following.
    package struct Events: Sendable, Equatable {
        package var since: UInt64
        package var follow: Bool

        package init(since: UInt64 = 0, follow: Bool = false) {
            self.since = since
            self.follow = follow
        }
    }
}
