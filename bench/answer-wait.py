#!/usr/bin/python3
"""How soon the agent hears the person: a press on the phone's answer endpoint -> the agent's held wait
answered, on loopback, beside its anchors measured in the same run.

usage: bench/answer-wait.py [--bin DIR] [--samples N] [--poll-samples N] [--state-in DIR] [--json]

Starts its own aiden-board from DIR (default .build/release) in a temporary directory (HTTP on
127.0.0.1:<free port>, the agent socket and the state there, Wakes to a UDP port it holds), starts one
task asking for input, then for each sample:

  1. the agent (a thread) holds `GET /v1/tasks/{id}/wait?for=answer&timeout=30` on the agent socket;
  2. once the board holds it, the bench stamps t0 and POSTs `{"answer":"done"}` to
     `/api/live-activity/tasks/{id}/answer` over TCP, as the phone does;
  3. the agent stamps t1 when its answer is in: t1 - t0 is the figure ("press -> agent notified");
  4. the task goes back to work and asks for input again (which clears the answer) for the next sample.

Anchors, in the same run: the press's own round trip (t0 -> the phone's 200: the answer is fsynced
before either side hears it, so the agent cannot hear sooner), a plain `GET /v1/tasks/{id}` on the
agent socket, and (`--poll-samples`, default 20) the way `task run` heard a stop before: the ring read
twice a second. `--state-in DIR` puts the board's state directory (whose fsync every answer waits for)
under DIR, e.g. /dev/shm to take the disk out of the figure. Prints p50, p99 and max of each (one JSON object with --json). Every process it
starts is stopped before it exits; every address is 127.0.0.1.
"""
import argparse
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASK = {"phase": "waiting_user", "current_action": "request_user_input", "current_step": "Enter the PIN"}


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout=40):
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.unix_path)


def call(conn, method, path, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    conn.request(method, path, body=data, headers=all_headers)
    response = conn.getresponse()
    payload = response.read()
    if response.status >= 300:
        raise SystemExit(f"{method} {path}: {response.status} {payload[:200]!r}")
    return json.loads(payload)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def percentiles(values_ms):
    ordered = sorted(values_ms)
    pick = lambda p: ordered[min(len(ordered) - 1, int(p * len(ordered)))]
    return {"count": len(ordered), "p50_ms": pick(0.5), "p99_ms": pick(0.99), "max_ms": ordered[-1]}


class Board:
    """A private aiden-board on loopback, stopped on exit."""

    def __init__(self, binary, state_in=None):
        self.work = Path(tempfile.mkdtemp(prefix="aiden-answer-wait-", dir=state_in))
        self.wake = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.wake.bind(("127.0.0.1", 0))
        self.http_port = free_port()
        self.socket_path = str(self.work / "agent.sock")
        config = self.work / "board.toml"
        config.write_text(
            f'[http]\nlisten = ["127.0.0.1:{self.http_port}"]\n'
            f'[wake]\ntransport = "loopback"\nloopback_target = "127.0.0.1:{self.wake.getsockname()[1]}"\n'
            f'[agent]\nsocket = "{self.socket_path}"\n'
            f'[state]\ndirectory = "{self.work / "state"}"\n'
            f'[log]\nlevel = "warning"\n')
        self.log = open(self.work / "board.log", "wb")
        self.process = subprocess.Popen([str(binary), "--config", str(config)], stdout=subprocess.DEVNULL,
                                        stderr=self.log)
        deadline = time.monotonic() + 20
        while not os.path.exists(self.socket_path):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise SystemExit("aiden-board did not start:\n" + (self.work / "board.log").read_text()[-2000:])
            time.sleep(0.02)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        self.wake.close()
        shutil.rmtree(self.work, ignore_errors=True)


def held_waits(board):
    """How many of the board's agent-socket connections are open (the held wait among them), from the kernel."""
    inode_lines = Path("/proc/net/unix").read_text().splitlines()[1:]
    return sum(1 for line in inode_lines if line.endswith(board.socket_path) and line.split()[5] == "03")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", type=Path, default=ROOT / ".build" / "release")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--poll-samples", type=int, default=20)
    parser.add_argument("--state-in", help="make the temporary directory (the board's state) under this one")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    board = Board(args.bin / "aiden-board", args.state_in)
    try:
        agent = UnixHTTPConnection(board.socket_path)
        task = call(agent, "POST", "/v1/tasks", dict(ASK, task_title="Bench: answer wait"))
        rid = task["live_activity"]["request_id"]
        notified, pressed, reads, polled = [], [], [], []

        def ask_again(step):
            # Back to work, then a new request for input: that clears the answer (docs/protocol.md §4.2).
            call(agent, "PATCH", f"/v1/tasks/{rid}", {"phase": "acting", "current_action": "tap"})
            call(agent, "PATCH", f"/v1/tasks/{rid}", dict(ASK, current_step=step))

        def press(index):
            # A connection of its own, made before t0 (the board closes a phone's idle keep-alive after 5 s).
            phone = http.client.HTTPConnection("127.0.0.1", board.http_port, timeout=10)
            phone.connect()
            body = {"answer": "done", "answer_id": f"bench-{index}", "phone_id": "bench-phone"}
            start = time.perf_counter_ns()
            call(phone, "POST", f"/api/live-activity/tasks/{rid}/answer", body)
            done = time.perf_counter_ns()
            phone.close()
            return start, done

        for index in range(args.samples):
            heard = {}
            baseline = held_waits(board)

            def hold():
                waiter = UnixHTTPConnection(board.socket_path)
                answer = call(waiter, "GET", f"/v1/tasks/{rid}/wait?for=answer&timeout=30")
                heard["at"] = time.perf_counter_ns()
                heard["outcome"] = answer["outcome"]
                waiter.close()

            thread = threading.Thread(target=hold)
            thread.start()
            # The wait is held once its connection is up and the board had a moment to take it.
            deadline = time.monotonic() + 5
            while held_waits(board) <= baseline and time.monotonic() < deadline:
                time.sleep(0.001)
            time.sleep(0.005)
            t0, t_pressed = press(index)
            thread.join(35)
            if heard.get("outcome") != "came":
                raise SystemExit(f"sample {index}: the wait answered {heard.get('outcome')!r}, not came")
            notified.append((heard["at"] - t0) / 1e6)
            pressed.append((t_pressed - t0) / 1e6)
            start = time.perf_counter_ns()
            call(agent, "GET", f"/v1/tasks/{rid}")
            reads.append((time.perf_counter_ns() - start) / 1e6)
            ask_again(f"Enter the PIN ({index})")

        # The old way: the ring read twice a second, as `task run` did.
        for index in range(args.poll_samples):
            read_at = time.monotonic()
            cursor = call(agent, "GET", "/v1/events")["next"]
            time.sleep((index % 10 + 0.5) / 20)  # presses spread over the half-second between two reads
            t0, _ = press(args.samples + index)
            while True:
                read_at += 0.5
                time.sleep(max(0.0, read_at - time.monotonic()))
                page = call(agent, "GET", f"/v1/events?since={cursor}")
                if any(e.get("request_id") == rid and e.get("transition") == "answered" for e in page["events"]):
                    break
                cursor = page["next"]
            polled.append((time.perf_counter_ns() - t0) / 1e6)
            ask_again(f"Poll {index}")
        call(agent, "POST", f"/v1/tasks/{rid}/end", {"status": "completed"})
    finally:
        board.stop()

    result = {
        "press_to_agent_notified": percentiles(notified),
        "anchor_press_round_trip": percentiles(pressed),
        "anchor_agent_get": percentiles(reads),
        "anchor_ring_polled_2hz": percentiles(polled) if polled else None,
    }
    if args.json:
        print(json.dumps(result))
        return
    for name, figures in result.items():
        if figures:
            print(f"{name:<28} n={figures['count']:<4} p50 {figures['p50_ms']:8.2f} ms   "
                  f"p99 {figures['p99_ms']:8.2f} ms   max {figures['max_ms']:8.2f} ms")


if __name__ == "__main__":
    main()
