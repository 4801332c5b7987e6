#!/usr/bin/python3
"""Questions the scenario asks of the Bumble phone's JSON-lines log (Tests/VM/peers/bumble_phone.py).

Each line is {"t": wall-clock seconds, "event": NAME, ...}; lines that are not JSON are skipped. Prints
the answer on one line, empty when there is none:

  count EVENT [SINCE]          how many EVENT lines (at or after SINCE)
  first EVENT SINCE            t of the first EVENT at or after SINCE
  first-wake SINCE             t of the first new Wake at or after SINCE
  lengths                      the distinct lengths of every notified value, sorted ("12")
  last-fetch-step SINCE        "T STEP" of the last fetch at or after SINCE
  fetch-step-from SINCE        "T STEP" of the first fetch that began at or after SINCE (T, the end, less
                               what it took; a fetch under way at SINCE may have read the board before it)
Usage: bumble_log.py LOG QUESTION ARGS...
"""
import json
import sys


def events(path):
    for line in open(path, encoding="utf-8", errors="replace"):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and "t" in event and "event" in event:
            yield event


def main(path, question, *args):
    log = list(events(path))
    if question == "count":
        since = float(args[1]) if len(args) > 1 else 0.0
        return str(sum(1 for e in log if e["event"] == args[0] and e["t"] >= since))
    if question == "first":
        since = float(args[1])
        return next((str(e["t"]) for e in log if e["event"] == args[0] and e["t"] >= since), "")
    if question == "first-wake":
        since = float(args[0])
        return next((str(e["t"]) for e in log if e["event"] == "wake" and e.get("new") and e["t"] >= since), "")
    if question == "lengths":
        return " ".join(str(n) for n in sorted({e.get("len") for e in log if e["event"] == "wake"}))
    if question == "last-fetch-step":
        since = float(args[0])
        fetches = [e for e in log if e["event"] == "fetch" and e["t"] >= since]
        return "%s %s" % (fetches[-1]["t"], fetches[-1].get("step")) if fetches else ""
    if question == "fetch-step-from":
        since = float(args[0])
        # t and took are both rounded to the millisecond: a fetch that began at SINCE may seem 2 ms earlier.
        began = [e for e in log if e["event"] == "fetch" and e["t"] - (e.get("took") or 0) >= since - 0.002]
        return "%s %s" % (began[0]["t"], began[0].get("step")) if began else ""
    sys.exit("unknown question %s" % question)


if __name__ == "__main__":
    print(main(*sys.argv[1:]))
