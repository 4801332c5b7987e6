"""Tell aiden-board what an AI agent is doing; the phone shows it as a Live Activity card.

    import aidenbridge

    with aidenbridge.task("Open Settings") as t:
        t.update(step="Tapping Wi-Fi", progress=0.4)

The task ends ``completed`` when the block ends and ``failed`` with the exception's text when it
raises. Errors are ``AidenError``s in aidenctl's exit classes (see ``aidenbridge.errors``). The
socket is ``$AIDEN_AGENT_SOCKET``, else ``/run/aiden/agent.sock``; pass ``Client(socket_path=…)``
for another. Standard library only.
"""

from typing import Any, Optional

from .client import Client, Task, derived_start_key, error_text
from .errors import (
    AidenError,
    BadAnswerError,
    BoardError,
    ConflictError,
    ConnectionLostError,
    InvalidInputError,
    NotFoundError,
    TaskEndedError,
    TimedOutError,
    UnavailableError,
    UsageError,
)

__version__ = "0.1.0"

__all__ = [
    "AidenError", "BadAnswerError", "BoardError", "Client", "ConflictError", "ConnectionLostError",
    "InvalidInputError", "NotFoundError", "Task", "TaskEndedError", "TimedOutError", "UnavailableError", "UsageError",
    "attach", "derived_start_key", "error_text", "task",
]


def task(title: str, *, client: Optional[Client] = None, **fields: Any) -> Task:
    """Starts a task (``Client.start``: request_id=, phase=, step=, progress=, on_stop=, …) on
    ``client``, or on the default socket. Use it in a ``with`` block to end it when the block ends; a
    stop from the phone raises nothing there: poll ``t.stop_requested`` or pass ``on_stop=``."""
    return (client or Client()).start(title, **fields)


def attach(request_id: Optional[str] = None, *, client: Optional[Client] = None) -> Task:
    """The running task ``request_id``, default ``$AIDEN_TASK_ID`` (set by ``aidenctl task run``)."""
    return (client or Client()).attach(request_id)
