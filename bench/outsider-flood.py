#!/usr/bin/python3
"""The phone's GET /current while outsiders are answered 403, beside the same GET with none.

usage: bench/outsider-flood.py [--seconds S] [--rate R] [--rounds N] [--binary PATH] [--json FILE]

Needs root: it builds its own network namespaces with scripts/netns-lab (board 192.168.42.1, phone
192.168.42.2 on one link, outsider 10.99.0.2 routed in from another subnet; nothing in the root
namespace but veth pairs for an instant) and removes them at the end. The board (release build,
.build/release/aiden-board unless --binary) serves 192.168.42.1:8080 with [http] interface = "eth0".
A phone-like client in the phone's namespace makes a paced GET /api/live-activity/current every 10 ms
on a fresh connection (as the phone does after a Wake) for S seconds; in each round it runs once alone
(the anchor) and once while the outsider opens R connections a second, each sending a GET and reading
its 403 (counted). Prints p50, p99 and max of both, and the outsider's achieved rate and answers.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "scripts" / "netns-lab"
TARGET = ("192.168.42.1", 8080)
REQUEST = b"GET /api/live-activity/current HTTP/1.1\r\nHost: 192.168.42.1:8080\r\nConnection: close\r\n\r\n"


def read_answer(sock):
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def role_phone(seconds):
    """Paced GETs every 10 ms, each on its own connection; prints the latencies (seconds) as JSON."""
    samples, failures = [], 0
    end = time.monotonic() + seconds
    next_at = time.monotonic()
    while time.monotonic() < end:
        start = time.monotonic()
        try:
            with socket.create_connection(TARGET, timeout=5) as sock:
                sock.sendall(REQUEST)
                answer = read_answer(sock)
            if answer.startswith(b"HTTP/1.1 200"):
                samples.append(time.monotonic() - start)
            else:
                failures += 1
        except OSError:
            failures += 1
        next_at += 0.010
        time.sleep(max(0.0, next_at - time.monotonic()))
    print(json.dumps({"samples": samples, "failures": failures}))


def role_outsider(seconds, rate):
    """R connections a second, paced, each a GET whose answer is read; prints the counts as JSON."""
    counts = {"opened": 0, "answered_403": 0, "closed_unanswered": 0, "other": 0, "failed": 0}
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def one():
        try:
            with socket.create_connection(TARGET, timeout=5) as sock:
                sock.sendall(REQUEST)
                answer = read_answer(sock)
            if answer.startswith(b"HTTP/1.1 403") and b'"forbidden"' in answer:
                key = "answered_403"
            else:
                key = "closed_unanswered" if not answer else "other"
        except OSError:
            key = "failed"
        with lock:
            counts[key] += 1

    threads = []
    next_at = time.monotonic()
    while time.monotonic() < end:
        thread = threading.Thread(target=one)
        thread.start()
        threads.append(thread)
        counts["opened"] += 1
        next_at += 1.0 / rate
        time.sleep(max(0.0, next_at - time.monotonic()))
        threads = [t for t in threads if t.is_alive()]
    for thread in threads:
        thread.join()
    counts["seconds"] = seconds
    print(json.dumps(counts))


def in_namespace(namespace, *arguments):
    return subprocess.Popen(
        ["ip", "netns", "exec", namespace, sys.executable, str(Path(__file__).resolve()), *arguments],
        stdout=subprocess.PIPE, text=True)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(fraction * len(ordered) + 0.5)) - 1))] if ordered else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--role", choices=["phone", "outsider"])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rate", type=float, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--binary", default=str(ROOT / ".build" / "release" / "aiden-board"))
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.role == "phone":
        return role_phone(args.seconds)
    if args.role == "outsider":
        return role_outsider(args.seconds, args.rate)
    if os.geteuid() != 0:
        sys.exit("outsider-flood: needs root (it builds network namespaces)")
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"outsider-flood: {args.binary} missing: build it first (swift build -c release)")
    prefix = f"of{os.getpid() % 100000}"
    subprocess.run(["bash", str(LAB), "up", prefix], check=True)
    board = None
    try:
        with tempfile.TemporaryDirectory(prefix="aiden-outsider-flood-") as scratch:
            config = Path(scratch) / "board.toml"
            config.write_text(
                '[http]\nlisten = ["192.168.42.1:8080"]\ninterface = "eth0"\n'
                '[wake]\ntransport = "loopback"\nloopback_target = "127.0.0.1:9"\n'
                f'[agent]\nsocket = "{scratch}/agent.sock"\n[state]\ndirectory = "{scratch}/state"\n'
                '[log]\nlevel = "warning"\n')
            board = subprocess.Popen(
                ["ip", "netns", "exec", f"{prefix}-board", args.binary, "--config", str(config)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(100):
                if os.path.exists(f"{scratch}/agent.sock"):
                    break
                time.sleep(0.05)
            subprocess.run(
                ["curl", "-sf", "-o", "/dev/null", "--unix-socket", f"{scratch}/agent.sock", "-X", "POST",
                 "-H", "Content-Type: application/json", "-d", '{"task_title":"Open Settings"}',
                 "http://localhost/v1/tasks"], check=True)
            alone, flooded, outsiders = [], [], []
            alone_failures = flooded_failures = 0
            for _ in range(args.rounds):
                phone = in_namespace(f"{prefix}-phone", "--role", "phone", "--seconds", str(args.seconds))
                result = json.loads(phone.communicate()[0])
                alone += result["samples"]
                alone_failures += result["failures"]
                outsider = in_namespace(
                    f"{prefix}-outsider", "--role", "outsider", "--seconds", str(args.seconds + 1),
                    "--rate", str(args.rate))
                time.sleep(0.5)
                phone = in_namespace(f"{prefix}-phone", "--role", "phone", "--seconds", str(args.seconds))
                result = json.loads(phone.communicate()[0])
                flooded += result["samples"]
                flooded_failures += result["failures"]
                outsiders.append(json.loads(outsider.communicate()[0]))
    finally:
        if board is not None:
            board.terminate()
            board.wait(timeout=10)
        subprocess.run(["bash", str(LAB), "down", prefix], check=False)
    opened = sum(o["opened"] for o in outsiders)
    answered = sum(o["answered_403"] for o in outsiders)
    rate = opened / sum(o["seconds"] for o in outsiders)
    figures = {
        "alone": {"p50_ms": percentile(alone, 0.5) * 1e3, "p99_ms": percentile(alone, 0.99) * 1e3,
                  "max_ms": max(alone) * 1e3, "samples": len(alone), "failures": alone_failures},
        "flooded": {"p50_ms": percentile(flooded, 0.5) * 1e3, "p99_ms": percentile(flooded, 0.99) * 1e3,
                    "max_ms": max(flooded) * 1e3, "samples": len(flooded), "failures": flooded_failures},
        "outsiders": {"opened": opened, "answered_403": answered, "per_second": rate,
                      "closed_unanswered": sum(o["closed_unanswered"] for o in outsiders),
                      "other": sum(o["other"] for o in outsiders), "failed": sum(o["failed"] for o in outsiders)},
    }
    print(f"phone GET /current, fresh connection each, paced 10 ms, {args.rounds} rounds of {args.seconds:g} s")
    print("| run | p50 | p99 | max | GETs | failed |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, label in (("alone", "no outsiders (anchor)"), ("flooded", f"outsiders at {rate:,.0f}/s")):
        f = figures[name]
        print(f"| {label} | {f['p50_ms']:.2f} ms | {f['p99_ms']:.2f} ms | {f['max_ms']:.2f} ms | "
              f"{f['samples']} | {f['failures']} |")
    print(f"outsider connections: {opened} opened, {answered} answered 403 forbidden, "
          f"{figures['outsiders']['closed_unanswered']} shut down unanswered (over the refused budget), "
          f"{figures['outsiders']['other']} other answers, {figures['outsiders']['failed']} failed")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
