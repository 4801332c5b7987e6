#!/usr/bin/python3
"""The privacy check on the air capture: what the board's controller sent over ATT.

Reads btmon's decoded text (btmon -r CAPTURE) and the raw capture. Every ATT value the board sent
(notifications, indications, read responses, from hci0 which is the board's controller) must be at most
12 bytes, and no task text given on the command line may appear anywhere in the capture, as text or as
bytes. Prints findings and ends with "ok: ..." or "FAIL: ...".
Usage: air_check.py CAPTURE DECODED TEXT...
"""
import re
import sys

capture = open(sys.argv[1], "rb").read()
decoded = open(sys.argv[2], encoding="utf-8", errors="replace").read().splitlines()
texts = sys.argv[3:]
problems = []

# btmon prints an ACL frame header naming the controller ("< ACL Data TX: Handle 3584 flags 0x00 dlen 19
# ... [hci0]"), then the ATT opcode line, then "Data: <hex>" (or "Data[N]:"). Track the controller of the
# current frame and the ATT operation.
controller = None
operation = None
board_values = 0
for line in decoded:
    header = re.match(r"^[<>@=] .*?\[(hci\d+)\]", line)
    if header:
        controller = header.group(1)
        operation = None
        continue
    att = re.search(r"ATT: (Handle Value Notification|Handle Value Indication|Read Response|Read Blob Response)", line)
    if att:
        operation = att.group(1)
        continue
    data = re.match(r"^\s+Data(?:\[\d+\])?: ([0-9a-f]+)$", line)
    if data and operation and controller == "hci0" and line.startswith(" "):
        value = bytes.fromhex(data.group(1))
        board_values += 1
        if len(value) > 12:
            problems.append("%s of %d bytes from the board: %s" % (operation, len(value), value.hex()))
        operation = None

for text in texts:
    for encoded in (text.encode("utf-8"), text.encode("utf-16-le")):
        if encoded in capture:
            problems.append("task text %r appears in the raw capture" % text)
    if any(text in line for line in decoded):
        problems.append("task text %r appears in the decoded capture" % text)

print("ATT values sent by the board's controller (hci0): %d" % board_values)
for problem in problems:
    print(problem)
if board_values == 0:
    print("FAIL: no ATT value from the board was captured (is btmon recording hci0?)")
elif problems:
    print("FAIL: %d finding(s)" % len(problems))
else:
    print("ok: %d ATT values from the board, none over 12 bytes; none of %d task texts on the air"
          % (board_values, len(texts)))
