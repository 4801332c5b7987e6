"""The client against a scripted stand-in for the agent socket: retries, odd answers and the error
classes, without a board."""

import json
import os
import socket
import tempfile
import threading
import unittest
from typing import Callable, List, Optional, Tuple

import aidenbridge
from aidenbridge import Client
from aidenbridge.client import _ending


class ScriptedSocket:
    """A Unix socket that answers each request with the next reply of a script: a (status, body) pair,
    "hang up" (close without a byte) or "stall" (never answer)."""

    def __init__(self, replies: List[object]) -> None:
        self.replies = list(replies)
        self.requests: List[Tuple[str, str, dict, bytes]] = []
        self.directory = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.directory.name, "agent.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(8)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.listener.close()
        self.directory.cleanup()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            with connection:
                request = self._read(connection)
                if request is None:
                    continue
                self.requests.append(request)
                reply = self.replies.pop(0) if self.replies else (500, "script exhausted")
                if reply == "hang up":
                    continue
                if reply == "stall":
                    connection.recv(1)  # until the client gives up and closes
                    continue
                status, body = reply
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                head = f"HTTP/1.1 {status} Scripted\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                connection.sendall(head.encode() + b"Connection: close\r\n\r\n" + data)

    @staticmethod
    def _read(connection: socket.socket) -> Optional[Tuple[str, str, dict, bytes]]:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = connection.recv(4096)
            if not chunk:
                return None
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        while len(body) < length:
            body += connection.recv(4096)
        return method, path, headers, body


SNAPSHOT = {"status": "ok", "live_activity": {"request_id": "chat_1", "status": "running", "revision": 1}}


class OfflineTests(unittest.TestCase):
    def scripted(self, replies: List[object], **options) -> Tuple[Client, ScriptedSocket]:
        server = ScriptedSocket(replies)
        self.addCleanup(server.close)
        return Client(server.path, **options), server

    def test_a_write_whose_connection_is_lost_is_sent_once_more_with_the_same_key(self) -> None:
        client, server = self.scripted(["hang up", (201, SNAPSHOT)])
        task = client.start("Open Settings")
        self.assertEqual(task.request_id, "chat_1")
        self.assertEqual(len(server.requests), 2)
        keys = [headers["idempotency-key"] for _, _, headers, _ in server.requests]
        self.assertEqual(keys[0], keys[1])
        self.assertTrue(keys[0].startswith("aidenbridge-"))
        self.assertEqual(server.requests[0][3], server.requests[1][3])

        client, server = self.scripted(["hang up", "hang up", (200, SNAPSHOT)])
        with self.assertRaises(aidenbridge.ConnectionLostError) as lost:
            client.update("chat_1", step="s")
        self.assertEqual(lost.exception.exit_code, 69)
        self.assertEqual(len(server.requests), 2, "once more, not forever")

    def test_requests_carry_the_contract_names_and_keys(self) -> None:
        client, server = self.scripted([(201, SNAPSHOT), (200, SNAPSHOT), (200, SNAPSHOT), (200, SNAPSHOT)])
        client.start("T", request_id="chat_1", step="S", progress=0, can_stop=True, stale_after_seconds=60)
        client.update(
            "chat_1", tool="tap", progress=1, expected_revision=3, idempotency_key="u-1", tool_status="Tapping OK",
            locale="de-CH")
        client.heartbeat("chat_1")
        client.end("chat_1", "failed", "boom")
        (m1, p1, h1, b1), (m2, p2, h2, b2), (m3, p3, h3, b3), (m4, p4, h4, b4) = server.requests
        self.assertEqual((m1, p1, h1["idempotency-key"]), ("POST", "/v1/tasks", "start:chat_1"))
        self.assertEqual(
            json.loads(b1),
            {
                "task_title": "T", "request_id": "chat_1", "current_step": "S", "progress": 0.0, "can_stop": True,
                "stale_after_seconds": 60,
            },
        )
        self.assertEqual((m2, p2, h2["idempotency-key"]), ("PATCH", "/v1/tasks/chat_1", "u-1"))
        self.assertEqual(
            json.loads(b2),
            {
                "last_tool_name": "tap", "tool_status": "Tapping OK", "locale": "de-CH", "progress": 1.0,
                "expected_revision": 3,
            },
        )
        self.assertEqual((m3, p3, b3), ("POST", "/v1/tasks/chat_1/heartbeat", b""))
        self.assertNotIn("idempotency-key", h3)
        self.assertNotIn("content-type", h3)
        self.assertEqual((m4, p4), ("POST", "/v1/tasks/chat_1/end"))
        self.assertEqual(json.loads(b4), {"status": "failed", "last_error": "boom"})
        self.assertTrue(h4["idempotency-key"].startswith("aidenbridge-"))

    def test_an_end_says_how_long_its_card_stays_only_when_asked(self) -> None:
        client, server = self.scripted([(200, SNAPSHOT)] * 3)
        client.end("chat_1", "completed", dismiss_after=0)
        client.end("chat_1", "completed", dismiss_after=30)
        aidenbridge.Task(client, dict(SNAPSHOT["live_activity"])).end("completed", dismiss_after=None)
        bodies = [json.loads(body) for _, _, _, body in server.requests]
        self.assertEqual(
            bodies,
            [
                {"status": "completed", "last_error": "", "dismiss_after_seconds": 0},
                {"status": "completed", "last_error": "", "dismiss_after_seconds": 30},
                {"status": "completed", "last_error": ""},
            ],
        )

    def test_a_heartbeat_whose_connection_is_lost_is_sent_once_more(self) -> None:
        client, server = self.scripted(["hang up", (200, SNAPSHOT)])
        self.assertEqual(client.heartbeat("chat_1")["request_id"], "chat_1")
        self.assertEqual([(m, p) for m, p, _, _ in server.requests], [("POST", "/v1/tasks/chat_1/heartbeat")] * 2)

        client, server = self.scripted([(200, SNAPSHOT), (200, SNAPSHOT)])
        client.update("chat_1", stale_after_seconds=900, abandon_after_seconds=7200)
        aidenbridge.task("T", client=client, abandon_after_seconds=600)
        self.assertEqual(json.loads(server.requests[0][3]), {"stale_after_seconds": 900, "abandon_after_seconds": 7200})
        self.assertEqual(json.loads(server.requests[1][3]), {"task_title": "T", "abandon_after_seconds": 600})

    def test_request_ids_are_one_path_segment(self) -> None:
        client, server = self.scripted([(200, SNAPSHOT)])
        client.show("a/b c?")
        self.assertEqual(server.requests[0][1], "/v1/tasks/a%2Fb%20c%3F")

    def test_refusals_are_worded_like_aidenctl_and_classed_by_status(self) -> None:
        cases = [
            (400, {"status": "error", "error": {"code": "invalid", "message": "too long", "field": "task_title"}},
             aidenbridge.InvalidInputError, 65, "invalid: too long (field task_title, 400)"),
            (413, {"status": "error", "error": {"code": "payload_too_large", "message": "big"}},
             aidenbridge.InvalidInputError, 65, "payload_too_large: big (413)"),
            (404, {"status": "error", "error": {"code": "not_found", "message": "no task"}},
             aidenbridge.NotFoundError, 1, "not_found: no task (404)"),
            (409, {"status": "error", "error": {"code": "conflict", "message": "has ended"}},
             aidenbridge.ConflictError, 1, "conflict: has ended (409)"),
            (503, {"status": "error", "error": {"code": "storage_failed", "message": "disk"}},
             aidenbridge.BoardError, 1, "storage_failed: disk (503)"),
            (500, "not json", aidenbridge.BoardError, 1, "aiden-board answered 500 to GET /v1/tasks/chat_1"),
        ]
        for status, body, kind, exit_code, message in cases:
            client, _ = self.scripted([(status, body)])
            with self.assertRaises(kind) as raised:
                client.show("chat_1")
            self.assertEqual(type(raised.exception), kind)
            self.assertEqual(raised.exception.exit_code, exit_code)
            self.assertEqual(raised.exception.status, status)
            self.assertEqual(str(raised.exception), message)
            self.assertIsInstance(raised.exception, aidenbridge.AidenError)

    def test_unusable_answers_are_bad_answers(self) -> None:
        for body in ["<html>", "[1]", json.dumps({"status": "ok"}), json.dumps({"live_activity": {"status": "x"}})]:
            client, _ = self.scripted([(200, body)])
            with self.assertRaises(aidenbridge.BadAnswerError) as raised:
                client.show("chat_1")
            self.assertEqual(raised.exception.exit_code, 1)
        client, _ = self.scripted([(200, {"status": "ok", "tasks": 7})])
        with self.assertRaises(aidenbridge.BadAnswerError):
            client.tasks()

    def test_a_board_that_does_not_answer_times_out(self) -> None:
        client, _ = self.scripted(["stall"], timeout=0.2)
        with self.assertRaises(aidenbridge.TimedOutError) as raised:
            client.status()
        self.assertEqual(raised.exception.exit_code, 69)
        self.assertIn("in time", str(raised.exception))

    def test_bad_calls_send_nothing(self) -> None:
        client, server = self.scripted([])
        bad: List[Callable[[], object]] = [
            lambda: client.start(""),
            lambda: client.start("T", progress=-0.1),
            lambda: client.start("T", progress=True),
            lambda: client.start("T", progress=float("nan")),
            lambda: client.start("T", status="completed"),
            lambda: client.start("T", can_stop="yes"),
            lambda: client.start("T", request_id=""),
            lambda: client.start("T", stale_after_seconds=1.5),
            lambda: client.start("T", stale_after_seconds=True),
            lambda: client.start("T", abandon_after_seconds=-1),
            lambda: client.update("chat_1", abandon_after_seconds="600"),
            lambda: client.heartbeat(""),
            lambda: client.update("chat_1"),
            lambda: client.update("chat_1", step=7),
            lambda: client.update("chat_1", step="s", expected_revision=-1),
            lambda: client.update("", step="s"),
            lambda: client.end("chat_1", "done"),
            lambda: client.end("chat_1", "completed", dismiss_after=-1),
            lambda: client.end("chat_1", "completed", dismiss_after=1.5),
            lambda: client.end("chat_1", "completed", dismiss_after=True),
            lambda: client.start("T", on_stop="not callable"),
            lambda: aidenbridge.Task(client, {"request_id": "chat_1"}).wait_for("done"),
            lambda: aidenbridge.Task(client, {"request_id": "chat_1"}).wait_for("stop", timeout=-1),
        ]
        saved = os.environ.pop("AIDEN_TASK_ID", None)
        if saved is not None:
            self.addCleanup(os.environ.__setitem__, "AIDEN_TASK_ID", saved)
        bad.append(lambda: client.attach())
        for call in bad:
            with self.assertRaises(aidenbridge.UsageError) as raised:
                call()
            self.assertEqual(raised.exception.exit_code, 64)
            self.assertIsInstance(raised.exception, ValueError)
        self.assertEqual(server.requests, [])

    def test_wait_for_holds_the_boards_wait_and_asks_again_after_its_timeout(self) -> None:
        waiting = dict(json.loads(json.dumps(SNAPSHOT))["live_activity"])
        answered = dict(waiting)
        answered["answer"] = {
            "answer": "done", "answer_id": "a-1", "phone_id": "p1", "answered_at": "2026-06-12T07:00:05Z",
        }
        client, server = self.scripted([
            (200, {"status": "ok", "for": "answer", "outcome": "timeout", "live_activity": waiting}),
            (200, {"status": "ok", "for": "answer", "outcome": "came", "live_activity": answered}),
        ])
        task = aidenbridge.Task(client, {"request_id": "chat_1"})
        event = task.wait_for("answer")
        self.assertEqual(
            event,
            {"request_id": "chat_1", "transition": "answered", "answer": "done", "at": "2026-06-12T07:00:05Z"},
        )
        self.assertEqual(
            [(m, p) for m, p, _, _ in server.requests],
            [("GET", "/v1/tasks/chat_1/wait?for=answer&timeout=60")] * 2,
        )
        self.assertEqual(task.snapshot["answer"]["answer_id"], "a-1")

    def test_a_wait_with_a_timeout_holds_no_longer_and_an_end_first_raises(self) -> None:
        ended = dict(json.loads(json.dumps(SNAPSHOT))["live_activity"], status="completed")
        client, server = self.scripted([
            (200, {"status": "ok", "for": "stop", "outcome": "timeout", "live_activity": ended}),
            (200, {"status": "ok", "for": "stop", "outcome": "ended", "live_activity": ended}),
            (200, {"status": "ok", "live_activity": ended}),
        ])
        task = aidenbridge.Task(client, {"request_id": "chat_1"})
        self.assertIsNone(task.wait_for("stop", timeout=0))
        self.assertEqual(server.requests[0][1], "/v1/tasks/chat_1/wait?for=stop&timeout=0")
        with self.assertRaises(aidenbridge.TaskEndedError) as raised:
            task.wait_for("stop", timeout=2.5)
        self.assertEqual(server.requests[1][1], "/v1/tasks/chat_1/wait?for=stop&timeout=3", "rounded up")
        self.assertIn("ended (completed)", str(raised.exception))
        with self.assertRaises(aidenbridge.BadAnswerError):
            client.wait("chat_1", "end")
        for bad in (61, -1, 1.5, True):
            with self.assertRaises(aidenbridge.UsageError):
                client.wait("chat_1", "end", bad)
            with self.assertRaises(aidenbridge.UsageError):
                client.events(0, wait=bad)
        self.assertEqual(len(server.requests), 3)

    def test_how_a_block_ends_its_task(self) -> None:
        self.assertEqual(_ending(RuntimeError, RuntimeError("locked")), ("failed", "locked"))
        self.assertEqual(_ending(ValueError, ValueError()), ("failed", "ValueError"))
        self.assertEqual(_ending(KeyboardInterrupt, KeyboardInterrupt()), ("canceled", "interrupted (KeyboardInterrupt)"))
        self.assertEqual(_ending(SystemExit, SystemExit(0)), ("completed", ""))
        self.assertEqual(_ending(SystemExit, SystemExit(None)), ("completed", ""))
        self.assertEqual(_ending(SystemExit, SystemExit(3)), ("failed", "exit status 3"))
        self.assertEqual(_ending(SystemExit, SystemExit("bye")), ("failed", "bye"))
        self.assertEqual(_ending(OSError, OSError("a\x07b" + "x" * 2000))[1], "ab" + "x" * 998)

    def test_the_socket_comes_from_the_argument_or_the_environment(self) -> None:
        saved = os.environ.get("AIDEN_AGENT_SOCKET")
        try:
            os.environ["AIDEN_AGENT_SOCKET"] = "/env/agent.sock"
            self.assertEqual(Client().socket_path, "/env/agent.sock")
            self.assertEqual(Client("/arg.sock").socket_path, "/arg.sock")
            os.environ["AIDEN_AGENT_SOCKET"] = ""
            self.assertEqual(Client().socket_path, "/run/aiden/agent.sock")
        finally:
            if saved is None:
                os.environ.pop("AIDEN_AGENT_SOCKET", None)
            else:
                os.environ["AIDEN_AGENT_SOCKET"] = saved


if __name__ == "__main__":
    unittest.main()
