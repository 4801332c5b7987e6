"""The errors of the agent API, in the same classes as aidenctl's exit statuses.

Every error has ``exit_code``, the status aidenctl would exit with for the same failure, so an agent
that wraps this client in a command can exit the way aidenctl does::

    AidenError                  any failure
    ├── UsageError        64    the call is wrong; nothing was sent (also a ValueError)
    ├── InvalidInputError 65    the board rejected the input: 400, 413
    ├── UnavailableError  69    the board could not be reached or did not answer (also an OSError)
    │   ├── TimedOutError       no answer in time
    │   └── ConnectionLostError the connection closed before the answer (after the one retry)
    └── BoardError         1    any other refusal (404, 409, 5xx) or an answer that cannot be used
        ├── NotFoundError       404: no such task (never started, or pruned)
        ├── ConflictError       409: the task has ended, a stale revision, a reused idempotency key
        ├── BadAnswerError      a 2xx answer without what the call needs
        └── TaskEndedError      Task.wait_for: the task ended before the stop or answer it waited for
"""

from typing import Any, Dict, Optional


class AidenError(Exception):
    """Any failure of a call to aiden-board."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UsageError(AidenError, ValueError):
    """The call is wrong (an unknown phase, progress outside 0…1, an empty title); nothing was sent."""

    exit_code = 64


class _Refusal(AidenError):
    """A non-2xx answer: its HTTP status and the board's error object, when it sent one."""

    def __init__(
        self, message: str, status: int, code: Optional[str] = None, field: Optional[str] = None,
        body: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.field = field
        self.body = body


class InvalidInputError(_Refusal):
    """The board rejected the input (400 ``invalid``, 413 ``payload_too_large``); ``field`` names the key."""

    exit_code = 65


class UnavailableError(AidenError, OSError):
    """aiden-board could not be reached (no socket, refused, permission denied) or did not answer."""

    exit_code = 69

    def __init__(self, message: str, socket_path: str) -> None:
        AidenError.__init__(self, message)
        self.socket_path = socket_path

    def __str__(self) -> str:
        return self.message


class TimedOutError(UnavailableError):
    """Connected, but no complete answer in time."""


class ConnectionLostError(UnavailableError):
    """The connection closed before a complete answer; the write may or may not have been applied."""


class BoardError(_Refusal):
    """Any other refusal (404, 409, 5xx), or an answer the call cannot use (``BadAnswerError``)."""

    exit_code = 1


class NotFoundError(BoardError):
    """404: no task with this request id (never started, or removed after its retention)."""


class ConflictError(BoardError):
    """409: the task has ended, ``expected_revision`` is stale, or an idempotency key was used before."""


class BadAnswerError(BoardError):
    """A 2xx answer that is not JSON or lacks what the call needs."""


def refusal(status: int, body: Optional[Dict[str, Any]], request: str) -> _Refusal:
    """The error for a non-2xx answer, worded as aidenctl words it."""
    error = body.get("error") if isinstance(body, dict) else None
    error = error if isinstance(error, dict) else {}
    code = error.get("code") if isinstance(error.get("code"), str) else None
    field = error.get("field") if isinstance(error.get("field"), str) else None
    text = error.get("message") if isinstance(error.get("message"), str) else None
    if text:
        where = f"field {field}, " if field else ""
        message = f"{code or 'error'}: {text} ({where}{status})"
    else:
        message = f"aiden-board answered {status} to {request}"
    kind = {400: InvalidInputError, 413: InvalidInputError, 404: NotFoundError, 409: ConflictError}.get(
        status, BoardError
    )
    return kind(message, status=status, code=code, field=field, body=body if isinstance(body, dict) else None)


class TaskEndedError(BoardError):
    """``Task.wait_for("stop" | "answer")``: the task ended (``ended_status``) first, so what it waited
    for cannot come any more."""

    def __init__(self, message: str, ended_status: str) -> None:
        super().__init__(message, status=409)
        self.ended_status = ended_status
