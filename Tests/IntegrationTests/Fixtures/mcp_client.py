"""aidenctl mcp driven by the official MCP Python SDK against a real board on loopback.

usage: mcp_client.py AIDENCTL SOCKET HTTP_HOST:PORT

Initializes (revision 2025-06-18), lists the tools and checks every input and output schema, calls each
tool, sees the card change on the phone's /api/live-activity/current, waits in task_handover for an
answer and a stop given through the phone's answer endpoint, and checks that the board's refusals and a
board that is not there come back as tool errors. Prints "ok" last; any failure raises.
"""
import asyncio
import http.client
import json
import sys
import threading
import time

import jsonschema
from mcp import ClientSession, McpError, StdioServerParameters
from mcp.client.stdio import stdio_client

AIDENCTL, SOCKET, HTTP = sys.argv[1], sys.argv[2], sys.argv[3]
HOST, PORT = HTTP.rsplit(":", 1)


def phone(method, path, body=None):
    connection = http.client.HTTPConnection(HOST, int(PORT), timeout=10)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    connection.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = connection.getresponse()
    payload = response.read()
    connection.close()
    return response.status, json.loads(payload) if payload else None


def card():
    status, body = phone("GET", "/api/live-activity/current")
    return body.get("live_activity") if status == 200 else None


def answer_later(request_id, answer, answer_id, delay):
    def press():
        time.sleep(delay)
        status, body = phone("POST", f"/api/live-activity/tasks/{request_id}/answer",
                             {"answer": answer, "answer_id": answer_id, "phone_id": "phone-1"})
        assert status == 200, (status, body)
    thread = threading.Thread(target=press)
    thread.start()
    return thread


async def call(session, tools, name, arguments):
    result = await session.call_tool(name, arguments)
    if not result.isError:
        jsonschema.validate(result.structuredContent, tools[name].outputSchema)
        assert json.loads(result.content[0].text) == result.structuredContent, "the text is the structured content"
    return result


async def main():
    params = StdioServerParameters(command=AIDENCTL, args=["--socket", SOCKET, "mcp"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.protocolVersion == "2025-06-18", init.protocolVersion
            assert init.serverInfo.name == "aidenctl"
            assert init.capabilities.tools is not None
            listed = await session.list_tools()
            tools = {tool.name: tool for tool in listed.tools}
            assert set(tools) == {"task_start", "task_update", "task_handover", "task_end", "task_heartbeat",
                                  "task_list", "task_status"}, sorted(tools)
            for tool in tools.values():
                jsonschema.Draft202012Validator.check_schema(tool.inputSchema)
                jsonschema.Draft202012Validator.check_schema(tool.outputSchema)
                assert tool.description and len(tool.description) > 40, tool.name
                assert tool.inputSchema["type"] == "object" and tool.outputSchema["type"] == "object"

            started = await call(session, tools, "task_start",
                                 {"title": "Open Settings", "request_id": "mcp-1", "can_stop": True,
                                  "step": "Looking"})
            assert not started.isError, started.content
            assert started.structuredContent["task"]["request_id"] == "mcp-1"
            assert card()["task_title"] == "Open Settings"
            again = await call(session, tools, "task_start", {"title": "Open Settings", "request_id": "mcp-1",
                                                               "can_stop": True, "step": "Looking"})
            assert again.structuredContent["task"]["revision"] == started.structuredContent["task"]["revision"], \
                "a retried start is the same task"

            updated = await call(session, tools, "task_update",
                                 {"request_id": "mcp-1", "step": "Tapping Wi-Fi", "phase": "acting",
                                  "progress": 0.5, "action": "tap", "target": "Wi-Fi"})
            assert not updated.isError, updated.content
            shown = card()
            assert (shown["current_step"], shown["progress"], shown["current_target"]) == ("Tapping Wi-Fi", 0.5, "Wi-Fi")
            retried = await call(session, tools, "task_update",
                                 {"request_id": "mcp-1", "step": "Tapping Wi-Fi", "phase": "acting",
                                  "progress": 0.5, "action": "tap", "target": "Wi-Fi"})
            assert retried.structuredContent["task"]["revision"] == updated.structuredContent["task"]["revision"], \
                "a retried update is answered, not applied again"

            beat = await call(session, tools, "task_heartbeat", {"request_id": "mcp-1"})
            assert not beat.isError, beat.content
            status = await call(session, tools, "task_status", {"request_id": "mcp-1"})
            assert status.structuredContent["task"]["current_step"] == "Tapping Wi-Fi"
            listing = await call(session, tools, "task_list", {})
            assert any(t["request_id"] == "mcp-1" for t in listing.structuredContent["tasks"])

            # Hand over: the card asks the person; the answer comes through the phone's endpoint.
            pressing = answer_later("mcp-1", "done", "ans-1", 1.0)
            began = time.monotonic()
            handed = await call(session, tools, "task_handover",
                                {"request_id": "mcp-1", "step": "Enter the Wi-Fi password", "timeout_seconds": 30})
            pressing.join()
            assert handed.structuredContent["outcome"] == "done", handed.structuredContent
            assert time.monotonic() - began < 5, "answered when the person pressed"
            assert handed.structuredContent["task"]["current_step"] == "Enter the Wi-Fi password"
            # The next handover is a new request for input: the earlier done does not count for it.
            timed = await call(session, tools, "task_handover",
                               {"request_id": "mcp-1", "step": "Confirm the network", "timeout_seconds": 1})
            assert timed.structuredContent["outcome"] == "timeout", timed.structuredContent
            assert card()["phase"] == "waiting_user" and card()["current_step"] == "Confirm the network"
            pressing = answer_later("mcp-1", "stop", "stop-1", 0.5)
            stopped = await call(session, tools, "task_handover",
                                 {"request_id": "mcp-1", "step": "Scan your badge", "timeout_seconds": 30})
            pressing.join()
            assert stopped.structuredContent["outcome"] == "stop", stopped.structuredContent

            ended = await call(session, tools, "task_end",
                               {"request_id": "mcp-1", "status": "canceled", "error": "stopped from the phone",
                                "dismiss_after_seconds": 0})
            assert ended.structuredContent["task"]["status"] == "canceled", ended.structuredContent
            assert card() is None or card()["request_id"] != "mcp-1", "dismissed at once"

            refused = await call(session, tools, "task_update", {"request_id": "mcp-1", "step": "Too late"})
            # Dismissed at once, so removed: the board's own message, as a tool error.
            assert refused.isError and 'no task with request_id "mcp-1"' in refused.content[0].text, refused.content
            try:
                await session.call_tool("task_end", {"request_id": "mcp-1", "status": "done"})
                raise AssertionError("arguments against the schema are a protocol error")
            except McpError as error:
                assert error.error.code == -32602 and "status must be one of" in error.error.message, error

    # A board that is not there: a clear tool error at once, no hang.
    params = StdioServerParameters(command=AIDENCTL, args=["--socket", SOCKET + ".gone", "mcp"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            began = time.monotonic()
            gone = await session.call_tool("task_status", {"request_id": "mcp-1"})
            assert gone.isError and "cannot reach aiden-board" in gone.content[0].text, gone.content
            assert time.monotonic() - began < 5
    print("ok")


asyncio.run(main())
