"""The agent API of aiden-board (docs/http-api.md, "Agent API"): start, update, end, show and list
tasks, follow their transitions, and read the daemon's health."""

import logging
import math
import os
import threading
import time
import uuid
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple
from urllib.parse import quote

from . import transport
from .errors import (
    BadAnswerError,
    BoardError,
    ConnectionLostError,
    InvalidInputError,
    TaskEndedError,
    UnavailableError,
    UsageError,
    refusal,
)

DEFAULT_SOCKET = "/run/aiden/agent.sock"
SOCKET_VARIABLE = "AIDEN_AGENT_SOCKET"
TASK_ID_VARIABLE = "AIDEN_TASK_ID"

PHASES = (
    "planning", "observing", "acting", "phone_bridge", "waiting_app", "waiting_user", "verifying", "answering",
)
ACTIVE_STATUSES = ("running", "needs_app")
TERMINAL_STATUSES = ("completed", "failed", "canceled")
#: What ``Task.wait_for`` waits for: the person's stop, their answer (``done`` or ``refuse``), the end.
WAIT_TARGETS = ("stop", "answer", "end")
#: The longest the board holds a wait (``Client.wait``, ``events(wait=…)``), in seconds.
LONGEST_HOLD = 60
#: How long ``wait_for``, ``follow`` and the stop follower pause before asking a board that could not be reached.
WATCH_INTERVAL = 0.5

#: The longest error text the board keeps (``last_error``).
MAX_ERROR_CHARACTERS = 1000

# Keyword argument → snapshot field, as aidenctl names its options (--step → current_step).
_TEXT_FIELDS = {
    "title": "task_title",
    "phone_id": "phone_id",
    "step": "current_step",
    "action": "current_action",
    "target": "current_target",
    "app": "current_app",
    "tool": "last_tool_name",
    "tool_status": "tool_status",
    "locale": "locale",
    "error": "last_error",
}
_FLAG_FIELDS = {"shows_progress": "shows_progress", "can_stop": "can_stop", "requires_app": "requires_app"}
# Whole seconds; their ranges (docs/http-api.md, "Silent agents") are the board's to check.
_SECONDS_FIELDS = ("stale_after_seconds", "abandon_after_seconds")


def derived_start_key(request_id: str) -> str:
    """The idempotency key of a start with ``request_id`` and no key of its own, the same as aidenctl's."""
    return "start:" + request_id


def fresh_key() -> str:
    """A key for one write, fresh per call: a retry of that call reuses it."""
    return "aidenbridge-" + uuid.uuid4().hex


def error_text(text: str) -> str:
    """``text`` as the board keeps ``last_error``: control characters other than tab and line breaks
    dropped, at most ``MAX_ERROR_CHARACTERS`` characters."""
    kept = "".join(c for c in text if c in "\t\n\r" or not (ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F))
    return kept.strip()[:MAX_ERROR_CHARACTERS]


def _fields(values: Dict[str, Any], statuses: tuple) -> Dict[str, Any]:
    """The JSON body members for the given keyword arguments; None means "not given"."""
    body: Dict[str, Any] = {}
    for name, value in values.items():
        if value is None:
            continue
        if name in _TEXT_FIELDS:
            if not isinstance(value, str):
                raise UsageError(f"{name} must be a string, not {value!r}")
            body[_TEXT_FIELDS[name]] = value
        elif name in _FLAG_FIELDS:
            if not isinstance(value, bool):
                raise UsageError(f"{name} must be True or False, not {value!r}")
            body[_FLAG_FIELDS[name]] = value
        elif name in _SECONDS_FIELDS:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise UsageError(f"{name} must be a whole number of seconds, not {value!r}")
            body[name] = value
        elif name == "request_id":
            if not isinstance(value, str) or not value:
                raise UsageError(f"request_id must be a non-empty string, not {value!r}")
            body["request_id"] = value
        elif name == "phase":
            if value not in PHASES:
                raise UsageError(f"phase must be one of {', '.join(PHASES)}, not {value!r}")
            body["phase"] = value
        elif name == "status":
            if value not in statuses:
                hint = " (end a task with end())" if value in TERMINAL_STATUSES else ""
                raise UsageError(f"status must be {' or '.join(statuses)}, not {value!r}{hint}")
            body["status"] = value
        elif name == "progress":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise UsageError(f"progress must be a number from 0 to 1, not {value!r}")
            if not 0 <= value <= 1:
                raise UsageError(f"progress must be a number from 0 to 1, not {value!r}")
            body["progress"] = float(value) + 0.0  # no -0.0 on the wire
        else:
            raise UsageError(f"unknown field {name!r}")
    return body


def _revision(value: Optional[int]) -> Optional[int]:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise UsageError(f"expected_revision must be a non-negative integer, not {value!r}")
    return value


class Client:
    """One board's agent socket. Safe to share between threads: every call has its own connection.

    ``socket_path`` defaults to ``$AIDEN_AGENT_SOCKET`` (when set and not empty), else
    ``/run/aiden/agent.sock``. ``timeout`` bounds each answer (5 s, as aidenctl), ``connect_timeout``
    the connection (1 s).
    """

    def __init__(
        self, socket_path: Optional[str] = None, timeout: float = 5.0, connect_timeout: float = 1.0
    ) -> None:
        self.socket_path = socket_path or os.environ.get(SOCKET_VARIABLE) or DEFAULT_SOCKET
        self.timeout = timeout
        self.connect_timeout = connect_timeout

    # MARK: Tasks

    def start(
        self, title: str, *, request_id: Optional[str] = None, phone_id: Optional[str] = None,
        status: Optional[str] = None, phase: Optional[str] = None, step: Optional[str] = None,
        action: Optional[str] = None, target: Optional[str] = None, app: Optional[str] = None,
        tool: Optional[str] = None, error: Optional[str] = None, progress: Optional[float] = None,
        shows_progress: Optional[bool] = None, can_stop: Optional[bool] = None,
        requires_app: Optional[bool] = None, stale_after_seconds: Optional[int] = None,
        abandon_after_seconds: Optional[int] = None, idempotency_key: Optional[str] = None,
        tool_status: Optional[str] = None, locale: Optional[str] = None,
        on_stop: Optional[Callable[[Dict[str, Any]], Any]] = None,
    ) -> "Task":
        """Starts a task and returns it. The start is idempotent: sent with ``idempotency_key``, else
        ``start:<request_id>`` when a request id is given (the same start twice is one task), else a
        fresh key; a start whose connection is lost is sent once more with the same key.

        With no news (an update or a heartbeat) for ``stale_after_seconds`` (board default 300) the card
        says so; after ``abandon_after_seconds`` (default 3600) the board ends the task ``failed``.

        ``tool_status``: the card's tool line (what the tool does now); the board times it from when it
        changes. ``locale``: a BCP 47 tag for the task's texts (``"en-US"``), checked by the board.

        ``on_stop``: called once, from a background thread, with the ``stop_requested`` event when the
        person asks from the phone to stop the task (``can_stop`` defaults to true with it). It raises
        nothing in the agent's thread: the agent stops its work and ends the task ``canceled``."""
        if on_stop is not None and not callable(on_stop):
            raise UsageError(f"on_stop must be callable, not {on_stop!r}")
        if on_stop is not None and can_stop is None:
            can_stop = True
        if not isinstance(title, str) or not title.strip():
            raise UsageError(f"title must be a non-empty string, not {title!r}")
        body = _fields(
            dict(
                title=title, request_id=request_id, phone_id=phone_id, status=status, phase=phase, step=step,
                action=action, target=target, app=app, tool=tool, error=error, progress=progress,
                shows_progress=shows_progress, can_stop=can_stop, requires_app=requires_app,
                stale_after_seconds=stale_after_seconds, abandon_after_seconds=abandon_after_seconds,
                tool_status=tool_status, locale=locale,
            ),
            ACTIVE_STATUSES,
        )
        key = idempotency_key or (derived_start_key(request_id) if request_id else fresh_key())
        snapshot = self._snapshot("POST", "/v1/tasks", body, key)
        task = Task(self, snapshot)
        if on_stop is not None:
            task._watch(on_stop)
        return task

    def update(
        self, request_id: str, *, title: Optional[str] = None, phone_id: Optional[str] = None,
        status: Optional[str] = None, phase: Optional[str] = None, step: Optional[str] = None,
        action: Optional[str] = None, target: Optional[str] = None, app: Optional[str] = None,
        tool: Optional[str] = None, error: Optional[str] = None, progress: Optional[float] = None,
        shows_progress: Optional[bool] = None, can_stop: Optional[bool] = None,
        requires_app: Optional[bool] = None, stale_after_seconds: Optional[int] = None,
        abandon_after_seconds: Optional[int] = None, expected_revision: Optional[int] = None,
        idempotency_key: Optional[str] = None, tool_status: Optional[str] = None, locale: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Changes the fields given of a running task and returns its snapshot. An empty string clears
        a text field. With ``expected_revision`` the board refuses (ConflictError) if the task moved on."""
        body = _fields(
            dict(
                title=title, phone_id=phone_id, status=status, phase=phase, step=step, action=action,
                target=target, app=app, tool=tool, error=error, progress=progress, shows_progress=shows_progress,
                can_stop=can_stop, requires_app=requires_app, stale_after_seconds=stale_after_seconds,
                abandon_after_seconds=abandon_after_seconds, tool_status=tool_status, locale=locale,
            ),
            ACTIVE_STATUSES,
        )
        if not body:
            raise UsageError("nothing to update: give at least one field (or send a heartbeat())")
        if _revision(expected_revision) is not None:
            body["expected_revision"] = expected_revision
        return self._snapshot("PATCH", self._task_path(request_id), body, idempotency_key or fresh_key())

    def heartbeat(self, request_id: str) -> Dict[str, Any]:
        """Says the agent is still at it (``POST /v1/tasks/{id}/heartbeat``): news that changes nothing,
        so the task does not go stale or get abandoned, answered with the task as it is (ConflictError
        once it has ended, NotFoundError once it is gone). Sent once more after a lost connection: a
        repeat is harmless."""
        return self._snapshot("POST", self._task_path(request_id) + "/heartbeat", None, None, repeatable=True)

    def end(
        self, request_id: str, status: str, error: Optional[str] = None, *,
        dismiss_after: Optional[int] = None,
        expected_revision: Optional[int] = None, idempotency_key: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Ends a task as ``completed``, ``failed`` or ``canceled`` with ``error`` (default: empty) as
        its ``last_error``, and returns the final snapshot. Ending is final; the same end twice is fine.

        ``dismiss_after``: how many seconds the ended card stays on the phone (``dismiss_after_seconds``):
        None for the board's retention, 0 to take it off at once, at most 86400 and never longer than the
        retention (the board checks the bound, as aidenctl's ``--dismiss``)."""
        if status not in TERMINAL_STATUSES:
            raise UsageError(f"status must be {', '.join(TERMINAL_STATUSES)}, not {status!r}")
        if error is not None and not isinstance(error, str):
            raise UsageError(f"error must be a string, not {error!r}")
        body: Dict[str, Any] = {"status": status, "last_error": error or ""}
        if dismiss_after is not None:
            if isinstance(dismiss_after, bool) or not isinstance(dismiss_after, int) or dismiss_after < 0:
                raise UsageError(f"dismiss_after must be None or a whole number of seconds, not {dismiss_after!r}")
            body["dismiss_after_seconds"] = dismiss_after
        if _revision(expected_revision) is not None:
            body["expected_revision"] = expected_revision
        return self._snapshot("POST", self._task_path(request_id) + "/end", body, idempotency_key or fresh_key())

    def show(self, request_id: str) -> Dict[str, Any]:
        """The task's snapshot."""
        return self._snapshot("GET", self._task_path(request_id), None, None)

    def tasks(self) -> List[Dict[str, Any]]:
        """Every task the board holds, most recently changed first."""
        answer = self._call("GET", "/v1/tasks", None, None)
        tasks = answer.get("tasks")
        if not isinstance(tasks, list):
            raise self._bad_answer("no tasks list in the answer")
        return tasks

    def attach(self, request_id: Optional[str] = None) -> "Task":
        """The running task ``request_id`` (default: ``$AIDEN_TASK_ID``, which ``aidenctl task run`` sets
        for its command), to update it from here."""
        request_id = request_id or os.environ.get(TASK_ID_VARIABLE)
        if not request_id:
            raise UsageError(f"no request id given and ${TASK_ID_VARIABLE} is not set")
        return Task(self, self.show(request_id))

    # MARK: Transitions and health

    def events(self, since: int = 0, generation: Optional[str] = None, wait: int = 0) -> Dict[str, Any]:
        """One page of the transition ring after cursor ``since``: ``events``, ``next`` (the cursor for
        the next call, with ``generation``), ``truncated`` and ``reset_required``. With ``wait`` (whole
        seconds, at most 60) the board holds the request until an event after the cursor comes, or
        ``wait`` seconds pass (then the page has no event)."""
        hold = _hold(wait, "wait")
        path = f"/v1/events?since={int(since)}"
        if generation:
            path += "&generation=" + quote(generation, safe="")
        if hold:
            path += f"&wait={hold}"
        page = self._call("GET", path, None, None, hold=hold)
        if not isinstance(page.get("events"), list) or not isinstance(page.get("next"), int):
            raise self._bad_answer("no events page (events, next, generation) in the answer")
        return page

    def follow(self, since: int = 0, interval: float = 1.0) -> Iterator[Dict[str, Any]]:
        """Every transition after ``since`` as it happens, oldest first, forever: holds the board's wait
        for the next event (30 s at a time), and asks again every ``interval`` seconds while the board
        cannot be reached. Break out of the loop to stop."""
        generation: Optional[str] = None
        while True:
            try:
                page = self.events(since, generation, wait=30)
            except (UnavailableError, BoardError) as failure:
                if not _board_away(failure):
                    raise
                time.sleep(interval)
                continue
            for event in page["events"]:
                yield event
            since, generation = page["next"], page.get("generation")

    def wait(self, request_id: str, what: str, timeout: int = 30) -> Dict[str, Any]:
        """The board's wait on task ``request_id`` for ``what`` (``"stop"``, ``"answer"`` or ``"end"``):
        held until it is on the task (at once when it is already), the task ended first, or ``timeout``
        whole seconds (at most 60) passed. Returns the answer: ``outcome`` (``"came"``, ``"ended"`` or
        ``"timeout"``), ``for`` and the task as ``live_activity``. ``Task.wait_for`` waits longer."""
        if what not in WAIT_TARGETS:
            raise UsageError(f"wait takes one of {', '.join(WAIT_TARGETS)}, not {what!r}")
        hold = _hold(timeout, "timeout")
        path = f"{self._task_path(request_id)}/wait?for={what}&timeout={hold}"
        answer = self._call("GET", path, None, None, hold=hold)
        if answer.get("outcome") not in ("came", "ended", "timeout") or not isinstance(
            answer.get("live_activity"), dict
        ):
            raise self._bad_answer("no outcome and live_activity in the answer")
        return answer

    def status(self) -> Dict[str, Any]:
        """The daemon's health, as ``aidenctl status --json`` prints it."""
        return self._call("GET", "/v1/status", None, None)

    # MARK: Requests

    @staticmethod
    def _task_path(request_id: str) -> str:
        if not isinstance(request_id, str) or not request_id:
            raise UsageError(f"request_id must be a non-empty string, not {request_id!r}")
        return "/v1/tasks/" + quote(request_id, safe="")

    def _snapshot(
        self, method: str, path: str, body: Optional[Dict[str, Any]], key: Optional[str], repeatable: bool = False
    ) -> Dict[str, Any]:
        answer = self._call(method, path, body, key, repeatable)
        snapshot = answer.get("live_activity")
        if not isinstance(snapshot, dict) or not isinstance(snapshot.get("request_id"), str):
            raise self._bad_answer("no live_activity.request_id in the answer")
        return snapshot

    def _call(
        self, method: str, path: str, body: Optional[Dict[str, Any]], key: Optional[str], repeatable: bool = False,
        hold: int = 0,
    ) -> Dict[str, Any]:
        """One request, sent once more with the same key after a lost connection (reads always can be,
        and so can a request the caller says is ``repeatable``). ``hold``: how long the board may hold
        the answer back (a wait), added to the time allowed for it."""
        headers = {"Idempotency-Key": key} if key else {}
        repeatable = repeatable or method == "GET" or key is not None
        try:
            status, answer, _ = self._send(method, path, body, headers, hold)
        except ConnectionLostError:
            if not repeatable:
                raise
            status, answer, _ = self._send(method, path, body, headers, hold)
        if not 200 <= status < 300:
            raise refusal(status, answer, f"{method} {path}")
        if answer is None:
            raise self._bad_answer("not a JSON object")
        return answer

    def _send(self, method: str, path: str, body: Optional[Dict[str, Any]], headers: Dict[str, str], hold: int = 0):
        return transport.send(
            self.socket_path, method, path, body, headers, self.connect_timeout, self.timeout + hold
        )

    def _bad_answer(self, detail: str) -> BadAnswerError:
        return BadAnswerError(f"unusable answer from aiden-board at {self.socket_path}: {detail}", status=200)


class Task:
    """A started task: update it, send heartbeats, end it, learn the person's answers from the phone.
    As a context manager it ends the task when the block ends: ``completed``, or ``failed`` with the
    exception's text (``canceled`` for KeyboardInterrupt), unless the block ended it itself."""

    def __init__(self, client: Client, snapshot: Dict[str, Any]) -> None:
        self.client = client
        self.snapshot = snapshot
        self.request_id: str = snapshot["request_id"]
        self._stop_event: Optional[Dict[str, Any]] = None
        self._watcher: Optional[threading.Thread] = None
        self._watching = threading.Event()
        self._lock = threading.Lock()

    @property
    def ended(self) -> bool:
        return self.snapshot.get("status") in TERMINAL_STATUSES

    @property
    def answer(self) -> Optional[Dict[str, Any]]:
        """The person's latest answer from the phone, read from the board now: ``{"answer": "stop" |
        "done" | "refuse", "answer_id", "phone_id", "answered_at"}``, or None."""
        self.snapshot = self.client.show(self.request_id)
        answer = self.snapshot.get("answer")
        return answer if isinstance(answer, dict) else None

    @property
    def stop_requested(self) -> bool:
        """Whether the person asked from the phone to stop the task. The first read starts a background
        thread that holds the board's wait for a stop (as ``on_stop`` does); the agent polls this and,
        when it is true, stops its work and ends the task ``canceled``."""
        if self._watcher is None:
            self._watch(None)
        with self._lock:
            return self._stop_event is not None

    def wait_for(self, what: str, timeout: Optional[float] = None) -> Optional[Dict[str, Any]]:
        """Blocks until the person asks to stop the task (``"stop"``), answers it done or refuse
        (``"answer"``), or it ends (``"end"``), and returns that event (``{"transition": …, "request_id":
        …, "at": …}``, ``"answer"`` on an answered one). One already recorded counts at once. Returns
        None when ``timeout`` seconds pass first (the board counts whole seconds: a fraction is rounded
        up); raises TaskEndedError when the task ends before a stop or an answer can come. As ``aidenctl
        task wait``: it holds the board's wait (``Client.wait``), which answers the moment it is recorded."""
        if what not in WAIT_TARGETS:
            raise UsageError(f"wait_for takes one of {', '.join(WAIT_TARGETS)}, not {what!r}")
        number = isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
        if timeout is not None and (not number or timeout < 0):
            raise UsageError(f"timeout must be a non-negative number of seconds or None, not {timeout!r}")
        deadline = None if timeout is None else time.monotonic() + timeout
        return self._wait(what, deadline, lambda: True)

    def _wait(self, what: str, deadline: Optional[float], going_on: Callable[[], bool]) -> Optional[Dict[str, Any]]:
        """``wait_for`` until ``deadline`` (None: none) passes or ``going_on()`` turns false (then None):
        the board's wait, asked again after each of its timeouts."""
        while True:
            hold = LONGEST_HOLD
            if deadline is not None:
                hold = min(hold, max(0, math.ceil(deadline - time.monotonic())))
            try:
                answer = self.client.wait(self.request_id, what, hold)
            except (UnavailableError, BoardError) as failure:
                if not _board_away(failure):
                    raise
                if (deadline is not None and time.monotonic() >= deadline) or not going_on():
                    return None
                time.sleep(WATCH_INTERVAL)  # the board restarts: ask again
                continue
            self.snapshot = answer["live_activity"]
            if answer["outcome"] == "came":
                return self._recorded(what)
            if answer["outcome"] == "ended":
                status = self.snapshot.get("status")
                raise TaskEndedError(f"task {self.request_id} ended ({status}) before a {what} came", status)
            if (deadline is not None and time.monotonic() >= deadline) or not going_on():
                return None

    def _recorded(self, what: str) -> Dict[str, Any]:
        """What came, read off the task (an event like the ring's)."""
        snapshot = self.snapshot
        answer = snapshot.get("answer") if isinstance(snapshot.get("answer"), dict) else {}
        event: Dict[str, Any] = {"request_id": self.request_id}
        if what == "stop":
            return dict(event, transition="stop_requested", at=answer.get("answered_at"))
        if what == "answer":
            return dict(event, transition="answered", answer=answer.get("answer"), at=answer.get("answered_at"))
        return dict(event, transition=snapshot.get("status"), at=snapshot.get("ended_at"))

    def _watch(self, on_stop: Optional[Callable[[Dict[str, Any]], Any]]) -> None:
        """Starts the background follower that notes a stop request (and calls ``on_stop`` once)."""
        if self._watcher is not None:
            return
        self._watching.set()

        def follow() -> None:
            event = None
            while event is None and self._watching.is_set():
                try:
                    event = self._wait("stop", None, self._watching.is_set)
                except TaskEndedError:
                    return
                except Exception as failure:  # a refusal or a bad answer: say so, and try again
                    logging.getLogger("aidenbridge").warning("following task %s: %s", self.request_id, failure)
                    time.sleep(WATCH_INTERVAL * 4)
            if event is None:
                return
            with self._lock:
                self._stop_event = event
            if on_stop is not None:
                try:
                    on_stop(event)
                except Exception as failure:
                    logging.getLogger("aidenbridge").warning(
                        "on_stop of task %s raised: %s", self.request_id, failure
                    )

        self._watcher = threading.Thread(target=follow, name=f"aidenbridge-stop-{self.request_id}", daemon=True)
        self._watcher.start()

    def update(self, **fields: Any) -> Dict[str, Any]:
        """``Client.update`` for this task: step=, progress=, phase=, action=, … ."""
        self.snapshot = self.client.update(self.request_id, **fields)
        return self.snapshot

    def heartbeat(self) -> Dict[str, Any]:
        """``Client.heartbeat`` for this task."""
        self.snapshot = self.client.heartbeat(self.request_id)
        return self.snapshot

    def end(self, status: str, error: Optional[str] = None, *, dismiss_after: Optional[int] = None) -> Dict[str, Any]:
        """Ends the task (``dismiss_after`` as in ``Client.end``); if ``error`` makes the snapshot too big for the
        board, ends it without."""
        self._watching.clear()
        try:
            self.snapshot = self.client.end(self.request_id, status, error, dismiss_after=dismiss_after)
        except InvalidInputError:
            if not error:
                raise
            self.snapshot = self.client.end(self.request_id, status, "", dismiss_after=dismiss_after)
        return self.snapshot

    def complete(self) -> Dict[str, Any]:
        return self.end("completed")

    def fail(self, error: str) -> Dict[str, Any]:
        return self.end("failed", error_text(error))

    def cancel(self, error: Optional[str] = None) -> Dict[str, Any]:
        return self.end("canceled", error_text(error) if error else None)

    def __enter__(self) -> "Task":
        return self

    def __exit__(self, kind, value, traceback) -> bool:
        if self.ended:
            return False
        if kind is None:
            self.complete()
            return False
        status, error = _ending(kind, value)
        try:
            self.end(status, error)
        except Exception as failure:  # the block's own exception matters more; say this one beside it
            logging.getLogger("aidenbridge").warning(
                "could not end task %s as %s: %s", self.request_id, status, failure
            )
        return False

    def __repr__(self) -> str:
        return f"<aidenbridge.Task {self.request_id} {self.snapshot.get('status')}>"


def _ending(kind: type, value: BaseException) -> Tuple[str, str]:
    """How a block that raised ends its task."""
    if issubclass(kind, KeyboardInterrupt):
        return "canceled", "interrupted (KeyboardInterrupt)"
    if issubclass(kind, SystemExit):
        code = value.code if isinstance(value, SystemExit) else None
        if code is None or code == 0:
            return "completed", ""
        return "failed", error_text(str(code) if not isinstance(code, int) else f"exit status {code}")
    text = error_text(str(value)) if value is not None else ""
    return "failed", text or kind.__name__


def _hold(seconds: Any, name: str) -> int:
    """How long the board may hold a wait: whole seconds from 0 to ``LONGEST_HOLD``."""
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not 0 <= seconds <= LONGEST_HOLD:
        raise UsageError(f"{name} must be a whole number of seconds from 0 to {LONGEST_HOLD}, not {seconds!r}")
    return seconds


def _board_away(failure: Exception) -> bool:
    """Whether the board cannot be asked just now: unreachable, or stopping (a held wait answered 503
    ``unavailable``). The loops that wait ask again."""
    if isinstance(failure, UnavailableError):
        return True
    return isinstance(failure, BoardError) and failure.status == 503 and failure.code == "unavailable"
