#!/usr/bin/env python3
"""Slow and idle HTTP clients against one listener, for the fault suite (Tests/IntegrationTests).

Opens --connections TCP connections to --target, spread over --sources (local addresses to bind),
and keeps them: each sends the start of a request and then one more header byte every
--trickle-seconds (0: idle, nothing after the first bytes), never finishing it. A connection the
server closes is opened again at once, until --seconds have passed; then every socket is closed.
Bounded in count and time; talks only to the target it is given. Prints one JSON line of counts.
"""
import argparse
import errno
import json
import resource
import selectors
import socket
import time

parser = argparse.ArgumentParser()
parser.add_argument("--target", required=True, help="host:port")
parser.add_argument("--sources", required=True, help="comma-separated local addresses to bind")
parser.add_argument("--connections", type=int, default=1000)
parser.add_argument("--seconds", type=float, default=10)
parser.add_argument("--trickle-seconds", type=float, default=1.0)
args = parser.parse_args()

host, port = args.target.rsplit(":", 1)
target = (host, int(port))
sources = [s for s in args.sources.split(",") if s]
limit = args.connections + 64
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, limit)), hard))

selector = selectors.DefaultSelector()
stats = {"opened": 0, "closed_by_server": 0, "connect_failed": 0, "bytes_sent": 0, "max_open": 0}
HEAD = b"GET /api/live-activity/current HTTP/1.1\r\nHost: 192.168.42.1\r\nX-Slow: "


def open_one(index):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setblocking(False)
    try:
        sock.bind((sources[index % len(sources)], 0))
        code = sock.connect_ex(target)
    except OSError:
        sock.close()
        stats["connect_failed"] += 1
        return
    if code not in (0, errno.EINPROGRESS):
        sock.close()
        stats["connect_failed"] += 1
        return
    stats["opened"] += 1
    selector.register(sock, selectors.EVENT_READ, {"index": index, "sent": 0, "next": 0.0})


def close_one(sock):
    selector.unregister(sock)
    sock.close()


deadline = time.monotonic() + args.seconds
for i in range(args.connections):
    open_one(i)
while time.monotonic() < deadline:
    closed = []
    for key, _ in selector.select(timeout=0.05):
        try:
            chunk = key.fileobj.recv(4096)
        except BlockingIOError:
            continue
        except OSError:
            chunk = b""
        if not chunk:
            closed.append(key)
    now = time.monotonic()
    for key in list(selector.get_map().values()):
        data = key.data
        if key in closed or now < data["next"] or (data["sent"] > 0 and args.trickle_seconds <= 0):
            continue
        piece = HEAD if data["sent"] == 0 else b"a"
        try:
            key.fileobj.send(piece)
        except BlockingIOError:
            continue  # not connected yet
        except OSError:
            closed.append(key)
            continue
        stats["bytes_sent"] += len(piece)
        data["sent"] += 1
        data["next"] = now + args.trickle_seconds
    stats["max_open"] = max(stats["max_open"], len(selector.get_map()))
    for key in closed:
        close_one(key.fileobj)
        stats["closed_by_server"] += 1
        if time.monotonic() < deadline:
            open_one(key.data["index"])
for key in list(selector.get_map().values()):
    close_one(key.fileobj)
print(json.dumps(stats), flush=True)
