#!/usr/bin/env python3
"""A process on the phone host that tries to take every connection the board gives one peer.

Against --target, for --seconds, it holds as many connections as it can (up to --connections) in three
ways at once: idle (connects, sends nothing), slowloris (sends the start of a request, then one header byte
every --trickle-seconds, never finishing), and rapid reopen (opens new connections in a tight loop, closing
its oldest beyond its share). A connection the server closes is opened again at once. Bounded in count and
time; talks only to the target it is given. Prints one JSON line of counts.
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
parser.add_argument("--connections", type=int, default=300)
parser.add_argument("--seconds", type=float, default=10)
parser.add_argument("--trickle-seconds", type=float, default=0.3)
args = parser.parse_args()

host, port = args.target.rsplit(":", 1)
target = (host, int(port))
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, args.connections + 64)), hard))

HEAD = b"GET /api/live-activity/current HTTP/1.1\r\nHost: 192.168.42.1:8080\r\nX-Slow: "
KINDS = ("idle", "slowloris", "reopen")
share = max(1, args.connections // len(KINDS))
selector = selectors.DefaultSelector()
held = {kind: [] for kind in KINDS}
stats = {"opened": 0, "closed_by_server": 0, "connect_failed": 0, "max_open": 0}


def open_one(kind):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setblocking(False)
    code = sock.connect_ex(target)
    if code not in (0, errno.EINPROGRESS):
        sock.close()
        stats["connect_failed"] += 1
        return
    stats["opened"] += 1
    data = {"kind": kind, "sent": 0, "next": time.monotonic()}
    selector.register(sock, selectors.EVENT_READ, data)
    held[kind].append(sock)


def drop(sock):
    for kind in KINDS:
        if sock in held[kind]:
            held[kind].remove(sock)
    try:
        selector.unregister(sock)
    except (KeyError, ValueError):
        pass
    sock.close()


deadline = time.monotonic() + args.seconds
while time.monotonic() < deadline:
    for kind in ("idle", "slowloris"):
        while len(held[kind]) < share:
            open_one(kind)
    # Rapid reopen: a burst of new connections each turn, the oldest beyond the share closed by us.
    for _ in range(8):
        open_one("reopen")
    while len(held["reopen"]) > share:
        drop(held["reopen"][0])
    for key, _ in selector.select(timeout=0.005):
        try:
            chunk = key.fileobj.recv(4096)
        except BlockingIOError:
            continue
        except OSError:
            chunk = b""
        if not chunk:
            stats["closed_by_server"] += 1
            drop(key.fileobj)
    now = time.monotonic()
    for sock in list(held["slowloris"]):
        data = selector.get_key(sock).data
        if now < data["next"]:
            continue
        piece = HEAD if data["sent"] == 0 else b"a"
        try:
            sock.send(piece)
            data["sent"] += len(piece)
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            drop(sock)
            continue
        data["next"] = now + args.trickle_seconds
    stats["max_open"] = max(stats["max_open"], sum(len(v) for v in held.values()))
for kind in KINDS:
    for sock in list(held[kind]):
        drop(sock)
print(json.dumps(stats))
