"""The client against a running aiden-board: set AIDEN_TEST_BOARD_SOCKET to its agent socket (the
Swift suite PythonClientTests starts one and runs these with the installed package)."""

import http.client
import json
import os
import threading
import time
import unittest
import uuid

import aidenbridge
from aidenbridge import Client


def _board_socket() -> str:
    path = os.environ.get("AIDEN_TEST_BOARD_SOCKET")
    if not path:
        raise RuntimeError(
            "these tests need a running aiden-board: set AIDEN_TEST_BOARD_SOCKET to its agent socket "
            "(swift test --filter PythonClientTests does)"
        )
    return path


def _answer(request_id: str, body: dict) -> tuple:
    """Posts the person's answer to the board's phone listener (``AIDEN_TEST_BOARD_HTTP``, host:port), as
    aiden-phone does over the USB link."""
    address = os.environ.get("AIDEN_TEST_BOARD_HTTP")
    if not address:
        raise RuntimeError("set AIDEN_TEST_BOARD_HTTP to the board's phone listener (host:port)")
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=5)
    try:
        connection.request(
            "POST", f"/api/live-activity/tasks/{request_id}/answer", json.dumps(body),
            {"Content-Type": "application/json"},
        )
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        connection.close()


def _unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


class LiveBoardTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.client = Client(_board_socket())

    def test_a_block_that_ends_normally_completes_its_task(self) -> None:
        with aidenbridge.task("Open Settings", client=self.client, phase="observing") as t:
            self.assertTrue(t.request_id.startswith("chat_"))
            t.update(step="Tapping Wi-Fi", progress=0.4, action="tap", target="Wi-Fi")
            shown = self.client.show(t.request_id)
            self.assertEqual(shown["status"], "running")
            self.assertEqual(shown["current_step"], "Tapping Wi-Fi")
            self.assertEqual(shown["progress"], 0.4)
            self.assertEqual(shown["current_target"], "Wi-Fi")
        final = self.client.show(t.request_id)
        self.assertEqual(final["status"], "completed")
        self.assertTrue(t.ended)

    def test_a_block_that_raises_fails_its_task_with_the_exception_text(self) -> None:
        with self.assertRaises(RuntimeError):
            with aidenbridge.task("Send a message", client=self.client) as t:
                raise RuntimeError("the screen is locked")
        final = self.client.show(t.request_id)
        self.assertEqual(final["status"], "failed")
        self.assertEqual(final["last_error"], "the screen is locked")

        with self.assertRaises(ValueError):
            with aidenbridge.task("Quiet failure", client=self.client) as quiet:
                raise ValueError()
        self.assertEqual(self.client.show(quiet.request_id)["last_error"], "ValueError")

    def test_an_interrupted_block_cancels_its_task(self) -> None:
        with self.assertRaises(KeyboardInterrupt):
            with aidenbridge.task("Long job", client=self.client) as t:
                raise KeyboardInterrupt
        self.assertEqual(self.client.show(t.request_id)["status"], "canceled")

    def test_a_block_that_ended_its_task_itself_keeps_that_end(self) -> None:
        with aidenbridge.task("Handled", client=self.client) as t:
            t.fail("gave up\non purpose\x1b[2J")
        final = self.client.show(t.request_id)
        self.assertEqual(final["status"], "failed")
        self.assertEqual(final["last_error"], "gave up\non purpose[2J")

    def test_starting_the_same_task_twice_is_one_task(self) -> None:
        request_id = _unique("retry")
        first = self.client.start("Open Settings", request_id=request_id, phase="planning")
        second = self.client.start("Open Settings", request_id=request_id, phase="planning")
        self.assertEqual(first.request_id, request_id)
        self.assertEqual(second.snapshot["revision"], first.snapshot["revision"])
        self.assertEqual([t["request_id"] for t in self.client.tasks()].count(request_id), 1)
        with self.assertRaises(aidenbridge.ConflictError) as refused:
            self.client.start("Something else", request_id=request_id)
        self.assertEqual(refused.exception.status, 409)
        self.assertEqual(refused.exception.exit_code, 1)
        # aidenctl derives the same key, so a start retried by either is the same start.
        self.assertEqual(aidenbridge.derived_start_key(request_id), "start:" + request_id)

        key = _unique("key")
        a = self.client.start("Keyed", idempotency_key=key)
        b = self.client.start("Keyed", idempotency_key=key)
        self.assertEqual(a.request_id, b.request_id)
        first.complete()
        a.complete()

    def test_a_retried_update_or_end_under_its_key_is_answered_not_repeated(self) -> None:
        t = self.client.start("Keyed writes")
        revision = t.snapshot["revision"]
        key = _unique("update")
        self.client.update(t.request_id, step="one", expected_revision=revision, idempotency_key=key)
        again = self.client.update(t.request_id, step="one", expected_revision=revision, idempotency_key=key)
        self.assertEqual(again["current_step"], "one")
        with self.assertRaises(aidenbridge.ConflictError):
            self.client.update(t.request_id, step="one", expected_revision=revision)
        with self.assertRaises(aidenbridge.ConflictError) as reused:
            self.client.update(t.request_id, step="two", idempotency_key=key)
        self.assertIn(key, str(reused.exception))
        end_key = _unique("end")
        self.client.end(t.request_id, "completed", idempotency_key=end_key)
        self.assertEqual(self.client.end(t.request_id, "completed", idempotency_key=end_key)["status"], "completed")

    def test_every_field_of_the_api_reaches_the_snapshot(self) -> None:
        t = self.client.start(
            "All fields", phone_id="phone_1", status="needs_app", phase="waiting_app", step="S", action="open_app",
            target="T", app="Settings", tool="launch", error="E", progress=0.25, shows_progress=False,
            can_stop=True, requires_app=True, stale_after_seconds=60, abandon_after_seconds=600,
        )
        s = t.snapshot
        expected = {
            "phone_id": "phone_1", "status": "needs_app", "phase": "waiting_app", "current_step": "S",
            "current_action": "open_app", "current_target": "T", "current_app": "Settings",
            "last_tool_name": "launch", "last_error": "E", "progress": 0.25, "shows_progress": False,
            "can_stop": True, "requires_app": True, "stale_after_seconds": 60, "abandon_after_seconds": 600,
        }
        self.assertEqual({k: s[k] for k in expected}, expected)
        t.update(
            title="Renamed", status="running", error="", can_stop=False, phone_id="", stale_after_seconds=900,
            abandon_after_seconds=7200,
        )
        self.assertEqual(t.snapshot["task_title"], "Renamed")
        self.assertEqual((t.snapshot["stale_after_seconds"], t.snapshot["abandon_after_seconds"]), (900, 7200))
        self.assertEqual(t.snapshot["last_error"], "")
        t.cancel("no longer needed")
        self.assertEqual(t.snapshot["status"], "canceled")

    def test_a_heartbeat_changes_nothing_and_says_whether_the_task_is_still_there(self) -> None:
        t = self.client.start("Heartbeats")
        before = t.snapshot["revision"]
        self.assertEqual(t.heartbeat()["revision"], before)
        with self.assertRaises(aidenbridge.InvalidInputError) as invalid:
            t.update(stale_after_seconds=5)
        self.assertEqual(invalid.exception.field, "stale_after_seconds")
        t.complete()
        with self.assertRaises(aidenbridge.ConflictError):
            t.heartbeat()
        with self.assertRaises(aidenbridge.NotFoundError):
            self.client.heartbeat(_unique("nobody"))

    def test_errors_come_in_aidenctls_exit_classes(self) -> None:
        with self.assertRaises(aidenbridge.UsageError) as usage:
            self.client.start("T", progress=1.5)
        self.assertEqual(usage.exception.exit_code, 64)
        with self.assertRaises(aidenbridge.UsageError):
            self.client.start("T", phase="thinking")
        with self.assertRaises(aidenbridge.UsageError):
            self.client.start("   ")
        with self.assertRaises(aidenbridge.InvalidInputError) as invalid:
            self.client.start("x" * 201)
        self.assertEqual(invalid.exception.exit_code, 65)
        self.assertEqual(invalid.exception.field, "task_title")
        self.assertEqual(invalid.exception.code, "invalid")
        with self.assertRaises(aidenbridge.InvalidInputError):
            self.client.start("T", idempotency_key="has space")
        away = Client(_board_socket() + ".nobody")
        with self.assertRaises(aidenbridge.UnavailableError) as unavailable:
            away.status()
        self.assertEqual(unavailable.exception.exit_code, 69)
        self.assertIn("is the daemon running?", str(unavailable.exception))

    def test_an_error_too_big_for_the_snapshot_still_ends_the_task(self) -> None:
        t = self.client.start("€" * 200, step="€" * 500)
        t.fail("€" * 1000)
        final = self.client.show(t.request_id)
        self.assertEqual(final["status"], "failed")
        self.assertEqual(final["last_error"], "")

    def test_an_end_says_how_long_its_card_stays(self) -> None:
        kept = self.client.start("Kept a while")
        ended = kept.end("completed", dismiss_after=30)
        self.assertEqual(ended["dismiss_after_seconds"], 30)
        self.assertEqual(self.client.show(kept.request_id)["dismiss_after_seconds"], 30)
        gone = self.client.start("Gone at once")
        self.assertEqual(gone.end("completed", dismiss_after=0)["dismiss_after_seconds"], 0)
        with self.assertRaises(aidenbridge.NotFoundError):
            self.client.show(gone.request_id)
        refused = self.client.start("Too long")
        with self.assertRaises(aidenbridge.InvalidInputError) as raised:
            self.client.end(refused.request_id, "completed", dismiss_after=86401)
        self.assertIn("dismiss_after_seconds", str(raised.exception))

    def test_attach_takes_the_task_from_the_environment(self) -> None:
        t = self.client.start("Run by aidenctl")
        os.environ["AIDEN_TASK_ID"] = t.request_id
        try:
            attached = aidenbridge.attach(client=self.client)
        finally:
            del os.environ["AIDEN_TASK_ID"]
        self.assertEqual(attached.request_id, t.request_id)
        attached.update(progress=1)
        attached.complete()
        self.assertEqual(self.client.show(t.request_id)["status"], "completed")

    def test_events_and_follow_see_the_transitions(self) -> None:
        page = self.client.events()
        self.assertEqual(page["status"], "ok")
        cursor = page["next"]
        request_id = _unique("followed")
        seen = []

        def watch() -> None:
            for event in self.client.follow(since=cursor, interval=0.1):
                if event["request_id"] == request_id:
                    seen.append(event["transition"])
                if len(seen) == 2:
                    return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        self.client.start("Followed", request_id=request_id).fail("boom")
        watcher.join(timeout=10)
        self.assertEqual(seen, ["started", "failed"])
        later = self.client.events(cursor, page["generation"])
        self.assertFalse(later["reset_required"])
        self.assertEqual([e["transition"] for e in later["events"] if e["request_id"] == request_id], ["started", "failed"])

    def test_wait_for_an_answer_and_read_it(self) -> None:
        t = self.client.start(
            "Enter the PIN", request_id=_unique("pin"), phase="waiting_user", action="request_user_input"
        )
        self.assertIsNone(t.answer)
        threading.Timer(0.3, _answer, (t.request_id, {"answer": "refuse", "answer_id": _unique("a")})).start()
        event = t.wait_for("answer", timeout=10)
        self.assertIsNotNone(event)
        self.assertEqual(event["transition"], "answered")
        self.assertEqual(event["answer"], "refuse")
        self.assertEqual(t.answer["answer"], "refuse")
        # Recorded already: counts at once.
        self.assertEqual(t.wait_for("answer", timeout=0)["answer"], "refuse")
        self.assertIsNone(t.wait_for("stop", timeout=0.2))
        t.complete()
        with self.assertRaises(aidenbridge.TaskEndedError):
            t.wait_for("stop", timeout=1)
        self.assertEqual(t.wait_for("end")["transition"], "completed")
        with self.assertRaises(aidenbridge.UsageError):
            t.wait_for("later")

    def test_a_stop_from_the_phone_calls_on_stop_and_raises_nothing_in_the_block(self) -> None:
        stopped = threading.Event()
        seen = []

        def on_stop(event: dict) -> None:
            seen.append(event)
            stopped.set()

        with aidenbridge.task("Long job", client=self.client, request_id=_unique("stop"), on_stop=on_stop) as t:
            self.assertTrue(t.snapshot["can_stop"], "on_stop makes the task stoppable")
            self.assertFalse(t.stop_requested)
            status, body = _answer(t.request_id, {"answer": "stop", "answer_id": _unique("s"), "phone_id": "p1"})
            self.assertEqual(status, 200, body)
            self.assertTrue(stopped.wait(10), "on_stop was called")
            deadline = time.monotonic() + 10
            while not t.stop_requested and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertTrue(t.stop_requested)
            self.assertEqual(seen[0]["transition"], "stop_requested")
            t.cancel("stopped from the phone")
        final = self.client.show(t.request_id)
        self.assertEqual(final["status"], "canceled")
        self.assertEqual(final["last_error"], "stopped from the phone")

    def test_status(self) -> None:
        status = self.client.status()
        self.assertEqual(status["status"], "ok")
        self.assertIn("version", status)


if __name__ == "__main__":
    unittest.main()
