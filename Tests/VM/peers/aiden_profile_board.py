#!/usr/bin/python3
"""A board of the Aiden profile for the real-stack scenario: its phone endpoints over HTTP and its Wake over
BLE, in one process, and nothing of ours. Its rules are the ones Tests/PhoneTestSupport/AidenProfileBoard.swift
gives the fast tests (docs/aiden-compatibility.md), so the phase and those tests play the same board
(Tests/DeploymentTests/AidenProfilePeerTests.swift asks both the same on loopback).

The phone's side (--listen HOST:PORT; Python's standard library):
  GET /api/live-activity/current?phone_id=ID   200 {"status":"ok","live_activity":{...}}: the task changed last
                                               that is for ID or for every phone; else 200 {"status":"not_found"}
  GET /api/live-activity/status?request_id=ID  200 the task the same way; an unknown id is 200 not_found
  any other path                               404: no /api/live-activity/events, no /status, nothing of ours
  a method other than GET or HEAD              405
The snapshot is the Aiden shape: tool_status, tool_started_at and locale beside the members both boards have,
RFC 3339 times, and an end published with can_stop false, shows_progress false and progress 1.

The agent's side (--control PATH: a Unix socket, HTTP with JSON bodies; the scenario plays the agent there):
  POST /tasks/ID       starts task ID: the profile's defaults, the body's members over them
  PATCH /tasks/ID      changes the body's members (a changed tool_status stamps tool_started_at, an empty one
                       clears it); 404 for an unknown ID
  POST /tasks/ID/end   ends it ({"status": ...}, completed when not given)
Each change is answered 200 {"seq": N, "reason": R, "notified": B, "taken": T}: its Wake's sequence and
reason, whether a subscribed central was notified, and the wall-clock time the change was made.

The Wake (--adapter hciN; peers/wake_peripheral.py's GATT objects, python-dbus): one per change and none
otherwise; 12 bytes, version 1, bytes 2-3 zero (no epoch), the sequence from 1 in every process; the reason
byte is the sequence mod 6, so every reason 0 to 5 comes by in six changes (an Aiden board sends 4 for a task
change; the phone must fetch on each). Without --adapter the Wakes are only logged (loopback tests).

Tasks survive a restart in --state FILE; the sequence does not. --log FILE: one JSON object a line,
{"t": wall-clock seconds, "event": NAME, ...}: listening, subscribed, unsubscribed, change, wake, get.

Usage: aiden_profile_board.py --listen 192.168.42.1:8080 --control /run/aiden-profile.sock
                              [--adapter hci0] [--state FILE] [--log FILE]
"""
import argparse
import json
import os
import socketserver
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG_LOCK = threading.Lock()
LOG_FILE = sys.stdout


def log(event, **members):
    line = json.dumps(dict({"t": round(time.time(), 6), "event": event}, **members), sort_keys=True)
    with LOG_LOCK:
        LOG_FILE.write(line + "\n")
        LOG_FILE.flush()


def stamp(wall):
    """RFC 3339, UTC, whole seconds."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(wall))


def body(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


class Board:
    """The tasks and the order they last changed in; the phone's answers. Serialized by `lock`."""

    def __init__(self, state_path=None):
        self.lock = threading.Lock()
        self.state_path = state_path
        self.tasks, self.changes = {}, []
        if state_path and os.path.exists(state_path):
            with open(state_path, encoding="utf-8") as f:
                saved = json.load(f)
            self.tasks, self.changes = saved["tasks"], saved["changes"]

    def start(self, task_id, fields, wall):
        now = stamp(wall)
        task = {
            "request_id": task_id, "phone_id": "", "status": "running", "phase": "planning", "task_title": "",
            "current_step": "", "current_action": "", "current_target": "", "current_app": "",
            "last_tool_name": "", "last_error": "", "progress": 0.0, "shows_progress": True, "can_stop": True,
            "requires_app": False, "tool_status": "", "tool_started_at": None, "locale": "en-US",
            "started_at": now, "updated_at": now, "ended_at": None,
        }
        self._change(task_id, self._edited(task, fields, now))

    def update(self, task_id, fields, wall):
        """False for an unknown task."""
        if task_id not in self.tasks:
            return False
        self._change(task_id, self._edited(self.tasks[task_id], fields, stamp(wall)))
        return True

    def end(self, task_id, status, wall):
        return self.update(task_id, {
            "status": status, "can_stop": False, "shows_progress": False, "progress": 1.0, "tool_status": "",
            "ended_at": stamp(wall)}, wall)

    @staticmethod
    def _edited(task, fields, now):
        task = dict(task)
        tool = fields.get("tool_status")
        if isinstance(tool, str) and tool != task.get("tool_status", ""):
            task["tool_started_at"] = now if tool else None
        task.update(fields)
        task["updated_at"] = now
        return task

    def _change(self, task_id, task):
        self.tasks[task_id] = task
        self.changes = [c for c in self.changes if c != task_id] + [task_id]
        if self.state_path:
            with open(self.state_path + ".new", "w", encoding="utf-8") as f:
                json.dump({"tasks": self.tasks, "changes": self.changes}, f)
            os.replace(self.state_path + ".new", self.state_path)

    def answer(self, method, target):
        """(status, body) for one request of the phone."""
        url = urllib.parse.urlsplit(target)
        query = {k: v[0] for k, v in urllib.parse.parse_qs(url.query, keep_blank_values=True).items()}
        if method not in ("GET", "HEAD"):
            return 405, b"Method Not Allowed"
        with self.lock:
            if url.path == "/api/live-activity/current":
                phone = query.get("phone_id", "")
                visible = [c for c in self.changes if self.tasks[c].get("phone_id", "") in ("", phone)]
                return 200, self._envelope(self.tasks[visible[-1]] if visible else None)
            if url.path == "/api/live-activity/status":
                return 200, self._envelope(self.tasks.get(query.get("request_id", "")))
        return 404, b"Not Found"

    @staticmethod
    def _envelope(task):
        return body({"status": "ok", "live_activity": task} if task is not None else {"status": "not_found"})


class Unsent:
    """The Wake without BLE (no --adapter): the same sequence and reasons, never notified."""

    def __init__(self):
        self.sequence = 0
        self.notifying = False

    def wake(self, reason):
        self.sequence += 1
        return False


class PhoneHandler(BaseHTTPRequestHandler):
    board = None

    def _serve(self, with_body):
        status, payload = self.board.answer(self.command, self.path)
        log("get", method=self.command, path=self.path, status=status)
        self.send_response(status)
        self.send_header("Content-Type", "application/json" if status == 200 else "text/plain")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if with_body:
            self.wfile.write(payload)

    def do_GET(self):
        self._serve(True)

    def do_HEAD(self):
        self._serve(False)

    def do_POST(self):
        self._serve(True)

    do_PUT = do_PATCH = do_DELETE = do_POST

    def log_message(self, *args):
        pass


class ControlHandler(BaseHTTPRequestHandler):
    board = None
    wake = None   # wake(reason) -> (sequence, notified), run where the Wake is sent

    def do_POST(self):
        self._change()

    def do_PATCH(self):
        self._change()

    def _change(self):
        parts = urllib.parse.urlsplit(self.path).path.strip("/").split("/")
        try:
            fields = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        except ValueError as error:
            return self._reply(400, {"error": "body: %s" % error})
        if not isinstance(fields, dict):
            return self._reply(400, {"error": "body: not an object"})
        with self.board.lock:
            wall = time.time()
            if self.command == "POST" and len(parts) == 2 and parts[0] == "tasks":
                self.board.start(parts[1], fields, wall)
            elif self.command == "PATCH" and len(parts) == 2 and parts[0] == "tasks":
                if not self.board.update(parts[1], fields, wall):
                    return self._reply(404, {"error": "no task %s" % parts[1]})
            elif self.command == "POST" and len(parts) == 3 and parts[0] == "tasks" and parts[2] == "end":
                if not self.board.end(parts[1], fields.get("status", "completed"), wall):
                    return self._reply(404, {"error": "no task %s" % parts[1]})
            else:
                return self._reply(404, {"error": "no such control path"})
            task = self.board.tasks[parts[1]]
            # Inside the lock: Wakes leave in the order of the changes.
            sequence, reason, notified = self.wake()
        value = bytes([1, reason, 0, 0]) + sequence.to_bytes(8, "little") if sequence > 0 else b""
        log("change", request_id=parts[1], step=task.get("current_step"), status=task.get("status"), taken=wall)
        log("wake", seq=sequence, reason=reason, value=value.hex(), notified=notified)
        self._reply(200, {"seq": sequence, "reason": reason, "notified": notified, "taken": wall})

    def _reply(self, status, obj):
        payload = body(obj)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def address_string(self):   # a Unix socket's peer has no address
        return "control"

    def log_message(self, *args):
        pass


class ControlServer(socketserver.UnixStreamServer):
    """One change at a time, as one agent's requests come."""

    def __init__(self, path, handler):
        if os.path.exists(path):
            os.unlink(path)
        super().__init__(path, handler)
        os.chmod(path, 0o600)


def main():
    global LOG_FILE
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", required=True, help="HOST:PORT the phone fetches from")
    parser.add_argument("--control", required=True, help="the agent's Unix socket")
    parser.add_argument("--adapter", help="hciN: send the Wake over BLE there (python-dbus, BlueZ)")
    parser.add_argument("--state", help="where the tasks are kept across restarts")
    parser.add_argument("--log", help="JSON-lines log (default: stdout)")
    args = parser.parse_args()
    if args.log:
        LOG_FILE = open(args.log, "a", encoding="utf-8")
    board = Board(args.state)
    host, _, port = args.listen.rpartition(":")
    PhoneHandler.board = board
    phone = ThreadingHTTPServer((host.strip("[]"), int(port)), PhoneHandler)
    phone.daemon_threads = True
    ControlHandler.board = board
    control = ControlServer(args.control, ControlHandler)
    # The phone's side answers before the Wake service is there: the phone fetches as soon as it subscribes.
    threading.Thread(target=phone.serve_forever, daemon=True).start()
    # The port bound (0 in --listen: one the kernel picks, as the loopback tests ask).
    log("listening", phone="%s:%d" % (host, phone.server_address[1]), control=args.control, adapter=args.adapter,
        tasks=len(board.tasks))

    if args.adapter:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import wake_peripheral
        from gi.repository import GLib

        loop = GLib.MainLoop()
        notes = {"StartNotify": "subscribed", "StopNotify": "unsubscribed"}
        characteristic = wake_peripheral.serve(
            args.adapter, 0, loop, say=lambda m: log(notes[m]) if m in notes else log("bluez", message=m))

        def wake():
            """The change's Wake, sent on the main loop (python-dbus is not shared across threads)."""
            done, result = threading.Event(), []

            def send():
                reason = (characteristic.sequence + 1) % 6
                result.append((characteristic.sequence + 1, reason, characteristic.wake(reason)))
                done.set()
                return False

            GLib.idle_add(send)
            if not done.wait(5):
                log("bluez", message="the main loop did not send the Wake within 5 s")
                return -1, -1, False
            return result[0]
    else:
        loop, unsent = None, Unsent()

        def wake():
            reason = (unsent.sequence + 1) % 6
            return unsent.sequence + 1, reason, unsent.wake(reason)

    ControlHandler.wake = staticmethod(wake)
    threading.Thread(target=control.serve_forever, daemon=True).start()
    if loop is not None:
        loop.run()
        return 1   # BlueZ refused the application or the advertisement (logged)
    threading.Event().wait()


if __name__ == "__main__":
    sys.exit(main())
