#!/usr/bin/env python3
"""Agent write throughput of a running aiden-board over its Unix socket (keep-alive, one client).

usage: bench/agent-writes.py SOCKET [SECONDS]

Measures, each for SECONDS (default 5):
  - PATCH progress updates on one task (lazy durability: written at most 1 s later)
  - start + end pairs (each start and end is fsynced before its answer)
Prints operations per second and the latency percentiles of each.
"""
import http.client
import json
import socket
import sys
import time


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost")
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def call(conn, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    payload = response.read()
    if response.status >= 300:
        raise SystemExit(f"{method} {path}: {response.status} {payload[:200]!r}")
    return json.loads(payload)


def measure(name, seconds, operation):
    latencies = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.monotonic()
        operation()
        latencies.append(time.monotonic() - start)
    latencies.sort()
    pct = lambda p: latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000
    print(f"{name:<34} {len(latencies) / seconds:8.0f} ops/s   p50 {pct(0.5):6.2f} ms   "
          f"p99 {pct(0.99):6.2f} ms   max {latencies[-1] * 1000:6.2f} ms")


def main():
    path = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
    conn = UnixHTTPConnection(path)
    task = call(conn, "POST", "/v1/tasks", {"task_title": "bench", "current_step": "start"})
    rid = task["live_activity"]["request_id"]
    counter = [0]

    def update():
        counter[0] += 1
        call(conn, "PATCH", f"/v1/tasks/{rid}", {"progress": (counter[0] % 100) / 100, "current_step": f"step {counter[0]}"})

    def start_and_end():
        started = call(conn, "POST", "/v1/tasks", {"task_title": "short"})
        call(conn, "POST", f"/v1/tasks/{started['live_activity']['request_id']}/end", {"status": "completed"})

    measure("PATCH update (lazy write)", seconds, update)
    measure("start + end (two fsynced writes)", seconds, start_and_end)
    call(conn, "POST", f"/v1/tasks/{rid}/end", {"status": "completed"})


if __name__ == "__main__":
    main()
