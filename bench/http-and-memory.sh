#!/usr/bin/env bash
# Serving cost of the phone's hot path and the board's memory, on loopback only.
#
# Builds aiden-board as deployed (release, --static-swift-stdlib), starts it on 127.0.0.1 with a
# private state directory, starts one task, then measures with wrk:
#   - GET /api/live-activity/current (200, cached bytes) and the same with If-None-Match (304)
#   - requests per second and requests per second of board CPU (utime+stime from /proc)
# and the board's resident memory idle, after the load, and with 256 tasks; then agent write
# throughput (bench/agent-writes.py: lazy PATCH updates, fsynced start+end pairs).
#
# usage: bench/http-and-memory.sh [SECONDS per run, default 10] [CONNECTIONS, default 16]
# needs: wrk (apt-get install wrk), curl
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${2:-16}
export PATH="/opt/swift/usr/bin:$PATH"
command -v wrk >/dev/null || { echo "bench: needs wrk (apt-get install wrk)" >&2; exit 69; }

swift build -c release --static-swift-stdlib --product aiden-board >/dev/null
swift build -c release --product aidenctl >/dev/null
board=.build/release/aiden-board
ctl=.build/release/aidenctl
work=$(mktemp -d /tmp/aiden-bench-XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$work/board.toml" <<TOML
[http]
listen = ["127.0.0.1:$port"]
[wake]
transport = "loopback"
loopback_target = "127.0.0.1:9"
[agent]
socket = "$work/agent.sock"
[state]
directory = "$work/state"
[log]
level = "warning"
TOML
"$board" --config "$work/board.toml" 2>"$work/board.log" &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT INT TERM
for _ in $(seq 1 100); do [ -S "$work/agent.sock" ] && break; sleep 0.05; done
sleep 0.2

rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)

echo "aiden-board $(stat -c %s "$board" | awk '{printf "%.1f MB", $1/1e6}') binary, $(nproc) cores, ${seconds}s per run, $connections connections"
echo "idle RSS: $(rss) kB"

id=$("$ctl" --socket "$work/agent.sock" task start --title "Open Settings" --step "Checking the current screen" | tail -n1)
url="http://127.0.0.1:$port/api/live-activity/current?phone_id="
etag=$(curl -s -D - -o /dev/null "$url" | awk -F': ' 'tolower($1)=="etag" {print $2}' | tr -d '\r')
bytes=$(curl -s "$url" | wc -c)

run() {  # name, extra wrk args...
    local name=$1; shift
    local before after rps
    before=$(cpu_ticks)
    rps=$(wrk -t2 -c"$connections" -d"${seconds}s" "$@" "$url" | awk '/Requests\/sec/ {print $2}')
    after=$(cpu_ticks)
    local cpu
    cpu=$(awk -v a="$after" -v b="$before" -v hz="$hz" 'BEGIN {printf "%.2f", (a-b)/hz}')
    awk -v n="$name" -v r="$rps" -v c="$cpu" -v s="$seconds" \
        'BEGIN {printf "%-28s %10.0f req/s   board CPU %5.2f s   %8.0f req per CPU-second\n", n, r, c, (c > 0 ? r*s/c : 0)}'
}
run "current 200 (${bytes} B body)"
run "current 304 (If-None-Match)" -H "If-None-Match: $etag"
echo "RSS after load: $(rss) kB"
echo "agent writes over the Unix socket (one keep-alive client):"
python3 bench/agent-writes.py "$work/agent.sock" "$seconds"

for n in $(seq 1 255); do
    "$ctl" --socket "$work/agent.sock" task start --title "Task $n" --step "step" >/dev/null
done
echo "RSS with 256 tasks: $(rss) kB"
"$ctl" --socket "$work/agent.sock" task end --id "$id" --status completed >/dev/null
