#!/usr/bin/python3
"""The privacy check on the air capture: what the board's controller sent over ATT.

Reads btmon's decoded text (btmon -r CAPTURE) and the raw capture. Every ATT value the board sent
(notifications, indications, read responses, from hci0 which is the board's controller) must be at most
12 bytes, and no task text given on the command line may appear anywhere in the capture, as text or as
bytes. Prints findings and ends with "ok: ..." or "FAIL: ...".

--controller hciN checks another controller of the board's instead (the Bumble phase's vhci controller);
--sent counts only the frames its host sent ("<" in btmon), not what it received: there the phone is
Bumble, whose own GATT server answers the board's bluetoothd with values of its own (its name, its
database hash), which are not the board's. Either way it also prints "SMP pairing requests: N", the
pairing requests on that controller in either direction (a bond made once shows exactly one).
Usage: air_check.py [--controller hciN] [--sent] CAPTURE DECODED TEXT...
"""
import re
import sys

args = sys.argv[1:]
board = "hci0"
sent_only = False
while args and args[0].startswith("--"):
    option = args.pop(0)
    if option == "--controller":
        board = args.pop(0)
    elif option == "--sent":
        sent_only = True
    else:
        sys.exit("unknown option %s" % option)
capture = open(args[0], "rb").read()
decoded = open(args[1], encoding="utf-8", errors="replace").read().splitlines()
texts = args[2:]
problems = []

# btmon prints an ACL frame header naming the controller ("< ACL Data TX: Handle 3584 flags 0x00 dlen 19
# ... [hci0]"), then the ATT opcode line, then "Data: <hex>" (or "Data[N]:"). Track the controller of the
# current frame and the ATT operation.
controller = None
direction = None
operation = None
board_values = 0
pairing_requests = 0
for line in decoded:
    header = re.match(r"^([<>@=]) .*?\[(hci\d+)\]", line)
    if header:
        direction, controller = header.group(1), header.group(2)
        operation = None
        continue
    if controller == board and "SMP: Pairing Request" in line:
        pairing_requests += 1
    att = re.search(r"ATT: (Handle Value Notification|Handle Value Indication|Read Response|Read Blob Response)", line)
    if att:
        operation = att.group(1)
        continue
    data = re.match(r"^\s+Data(?:\[\d+\])?: ([0-9a-f]+)$", line)
    if data and operation and controller == board and (direction == "<" or not sent_only) and line.startswith(" "):
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

print("ATT values sent by the board's controller (%s): %d" % (board, board_values))
print("SMP pairing requests: %d" % pairing_requests)
for problem in problems:
    print(problem)
if board_values == 0:
    print("FAIL: no ATT value from the board was captured (is btmon recording %s?)" % board)
elif problems:
    print("FAIL: %d finding(s)" % len(problems))
else:
    print("ok: %d ATT values from the board, none over 12 bytes; none of %d task texts on the air"
          % (board_values, len(texts)))
