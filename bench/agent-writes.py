#!/usr/bin/python3
"""Agent write throughput of a running aiden-board over its Unix socket (keep-alive, one client).

usage: bench/agent-writes.py SOCKET [SECONDS] [--only updates|pairs] [--json]

Measures, each for SECONDS (default 5):
  - PATCH progress updates on one task (lazy durability: written at most 1 s later)
  - start + end pairs (each start and end is fsynced before its answer)
Prints operations per second and the latency percentiles of each (one JSON object per line with
--json). bench/run uses `--only pairs` as the fsync storm beside the phone's GETs, and imports
UnixHTTPConnection and call() for its own agent writes.
"""
import argparse
import http.client
import json
import socket
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


def measure(name, seconds, operation, as_json=False):
    latencies = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.monotonic()
        operation()
        latencies.append(time.monotonic() - start)
    latencies.sort()
    pct = lambda p: latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000
    if as_json:
        print(json.dumps({"operation": name, "count": len(latencies), "seconds": seconds,
                          "ops_per_second": len(latencies) / seconds, "p50_ms": pct(0.5),
                          "p99_ms": pct(0.99), "max_ms": latencies[-1] * 1000}), flush=True)
    else:
        print(f"{name:<34} {len(latencies) / seconds:8.0f} ops/s   p50 {pct(0.5):6.2f} ms   "
              f"p99 {pct(0.99):6.2f} ms   max {latencies[-1] * 1000:6.2f} ms", flush=True)


def main():
    parser = argparse.ArgumentParser(description="Agent write throughput over the board's Unix socket.")
    parser.add_argument("socket")
    parser.add_argument("seconds", nargs="?", type=float, default=5.0)
    parser.add_argument("--only", choices=["updates", "pairs"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    path, seconds = args.socket, args.seconds
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

    if args.only != "pairs":
        measure("PATCH update (lazy write)", seconds, update, args.json)
    if args.only != "updates":
        measure("start + end (two fsynced writes)", seconds, start_and_end, args.json)
    call(conn, "POST", f"/v1/tasks/{rid}/end", {"status": "completed"})


if __name__ == "__main__":
    main()
