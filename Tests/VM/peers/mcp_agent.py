#!/usr/bin/python3
"""An agent that speaks only the Model Context Protocol, for the real-stack scenario.

It runs `aidenctl mcp` as its MCP server over stdio (newline-delimited JSON-RPC 2.0, as an MCP client
launches a stdio server) and drives one task through the tools alone: initialize, tools/list,
task_start, task_update, task_handover (which blocks until the person answers on the phone),
task_end. No aidenctl flag is typed: this is what an agent with no AidenBridge code does.

The official SDK (PyPI `mcp`) is the client of the fast tests (MCPClientTests); here the guest has only
the standard library, and the wire is what matters: the same JSON-RPC the SDK sends.

Usage: mcp_agent.py SOCKET REQUEST_ID LOG
Each step is one JSON line in LOG, {"at": <unix time>, "step": ..., ...}, which the scenario reads; it
exits 0 when every call answered as an MCP server must, 1 otherwise (the reason in LOG).
"""

import json
import subprocess
import sys
import time

PROTOCOL = "2025-06-18"


def main():
    socket, request_id, log_path = sys.argv[1:4]
    log = open(log_path, "a", buffering=1)

    def note(step, **fields):
        log.write(json.dumps({"at": time.time(), "step": step, **fields}) + "\n")

    server = subprocess.Popen(
        ["aidenctl", "--socket", socket, "mcp"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
    )
    next_id = [0]

    def call(method, params):
        next_id[0] += 1
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params}) + "\n")
        server.stdin.flush()
        line = server.stdout.readline()
        if not line:
            raise RuntimeError(f"{method}: the server closed stdout ({server.stderr.read()[:300]!r})")
        answer = json.loads(line)
        if answer.get("id") != next_id[0] or answer.get("jsonrpc") != "2.0":
            raise RuntimeError(f"{method}: not the answer to request {next_id[0]}: {line[:300]}")
        if "error" in answer:
            raise RuntimeError(f"{method}: JSON-RPC error {answer['error']}")
        return answer["result"]

    def tool(name, arguments):
        result = call("tools/call", {"name": name, "arguments": arguments})
        if result.get("isError"):
            raise RuntimeError(f"{name}: tool error {result.get('content')}")
        structured = result.get("structuredContent")
        if not isinstance(structured, dict):
            raise RuntimeError(f"{name}: no structuredContent in {json.dumps(result)[:300]}")
        return structured

    try:
        hello = call("initialize", {
            "protocolVersion": PROTOCOL, "capabilities": {},
            "clientInfo": {"name": "vm-mcp-agent", "version": "1"},
        })
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        note("initialized", protocol=hello.get("protocolVersion"), server=hello.get("serverInfo", {}).get("name"))
        tools = call("tools/list", {})["tools"]
        note("tools", names=sorted(t["name"] for t in tools))

        note("start")  # before the call: the card may be up before the answer is read
        started = tool("task_start", {
            "title": "Deploy the site", "request_id": request_id, "step": "Building the pages",
            "phase": "acting", "can_stop": True,
        })
        note("started", status=started.get("task", {}).get("status"))
        time.sleep(2)
        tool("task_update", {"request_id": request_id, "step": "Uploading", "progress": 0.5})
        note("updated")
        time.sleep(2)
        note("handover")
        answered = tool("task_handover", {"request_id": request_id, "step": "Approve the deploy", "timeout_seconds": 90})
        note("answered", outcome=answered.get("outcome"))
        ended = tool("task_end", {"request_id": request_id, "status": "completed"})
        note("ended", status=ended.get("task", {}).get("status"))
    except Exception as error:  # the scenario reads the reason from the log
        note("error", message=str(error))
        server.kill()
        return 1
    server.stdin.close()
    code = server.wait(timeout=10)
    note("exit", code=code)
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
