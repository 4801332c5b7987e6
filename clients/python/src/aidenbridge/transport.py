"""HTTP/1.1 over aiden-board's Unix socket with the standard library: one connection per request, the
same time limits as aidenctl (1 s to connect, 5 s for the answer) and answers up to 1 MiB."""

import errno
import http.client
import json
import socket
from typing import Any, Dict, Mapping, Optional, Tuple

from .errors import BadAnswerError, ConnectionLostError, TimedOutError, UnavailableError

MAX_ANSWER_BYTES = 1 << 20

_HINTS = {
    errno.ENOENT: " (is the daemon running?)",
    errno.ECONNREFUSED: " (is the daemon running?)",
    errno.EACCES: " (is your user in the socket's group, e.g. aiden?)",
    errno.EPERM: " (is your user in the socket's group, e.g. aiden?)",
}


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, connect_timeout: float, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path
        self._connect_timeout = connect_timeout

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(self._connect_timeout)
            sock.connect(self._path)
            sock.settimeout(self.timeout)
        except BaseException:
            sock.close()
            raise
        self.sock = sock


class _NotConnected(Exception):
    """connect() failed: nothing was sent."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


def send(
    socket_path: str, method: str, path: str, body: Optional[Mapping[str, Any]], headers: Mapping[str, str],
    connect_timeout: float, timeout: float,
) -> Tuple[int, Optional[Dict[str, Any]], bytes]:
    """One request: the status, the answer as a JSON object (None if it is not one) and its bytes.

    Raises UnavailableError (or TimedOutError, ConnectionLostError) when no complete answer came."""
    data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode() if body is not None else None
    all_headers = {"Accept": "application/json", **headers}
    if data is not None:
        all_headers["Content-Type"] = "application/json"
    connection = _UnixConnection(socket_path, connect_timeout, timeout)
    try:
        try:
            connection.connect()
        except OSError as error:
            raise _NotConnected(error) from error
        connection.request(method, path, body=data, headers=all_headers)
        response = connection.getresponse()
        payload = response.read(MAX_ANSWER_BYTES + 1)
        if len(payload) > MAX_ANSWER_BYTES:
            raise BadAnswerError(
                f"unusable answer from aiden-board at {socket_path}: over {MAX_ANSWER_BYTES} bytes", status=200
            )
        status = response.status
    except _NotConnected as failure:
        if isinstance(failure.error, socket.timeout):
            raise TimedOutError(f"no answer from aiden-board at {socket_path} in time (is it stuck?)", socket_path)
        reason = failure.error.strerror or str(failure.error)
        hint = _HINTS.get(failure.error.errno or 0, "")
        raise UnavailableError(f"cannot reach aiden-board at {socket_path}: {reason}{hint}", socket_path)
    except socket.timeout:
        raise TimedOutError(f"no answer from aiden-board at {socket_path} in time (is it stuck?)", socket_path)
    except (http.client.HTTPException, ConnectionError) as error:
        raise ConnectionLostError(
            f"aiden-board at {socket_path} closed the connection before answering: {error or type(error).__name__}",
            socket_path,
        )
    except OSError as error:
        raise UnavailableError(f"talking to aiden-board at {socket_path} failed: {error}", socket_path)
    finally:
        connection.close()
    try:
        parsed = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        parsed = None
    return status, parsed if isinstance(parsed, dict) else None, payload
