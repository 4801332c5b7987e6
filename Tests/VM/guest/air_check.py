#!/usr/bin/python3
"""The air checks on the run's air capture: what the board's controller sent over ATT, and when.

Reads the raw capture (hci_capture.py's, btsnoop "monitor" format, as `btmon -w` writes it) itself:
`btmon -r` stops decoding, silently, at the first record over its own limit of 1490 bytes. Every record is
walked here, whatever its size; ACL data is reassembled per controller, connection and direction, and ATT is
read from L2CAP channel 4, SMP from channel 6.

  air_check.py CAPTURE --controller hciN [--since T] [--until T] [--min-gap S] [--smp-requests N] TEXT...

Checks, on the ATT frames the host of controller hciN sent (ACL TX) between --since and --until (wall-clock
seconds, the capture's own timestamps):
  - every Handle Value Notification, and every value in a Multiple Handle Value Notification (what
    bluetoothd sends a BlueZ client that supports it), carries exactly 12 bytes (a Wake), and there is at
    least one;
  - every Read Response to a read of a handle that was notified carries at most 12 bytes (the Wake
    characteristic read; bluetoothd's own GAP and GATT values, its name and database hash, are not the
    board's and are only counted);
  - with --min-gap S: no two notifications of the same handle closer than S seconds (the board's
    coalescing, timed where the board's controller takes them rather than where a phone receives them);
  - with --smp-requests N: exactly N SMP Pairing Requests on that controller, in either direction;
  - no TEXT appears anywhere in the capture, as UTF-8 or UTF-16.
Prints what it found and ends with "ok: ..." or "FAIL: ...".
"""
import struct
import sys

BTSNOOP_EPOCH_DELTA = 0x00E03AB44A676000  # btsnoop's microseconds since year 0 minus 2000-01-01
UNIX_2000 = 946684800
ACL_TX, ACL_RX, NEW_INDEX = 4, 5, 0


def records(data):
    """(index, opcode, wall-clock seconds, payload) of every record; stops at a record cut short."""
    if data[:8] != b"btsnoop\0" or struct.unpack(">I", data[12:16])[0] != 2001:
        raise SystemExit("FAIL: not a btsnoop monitor capture")
    offset = 16
    while offset + 24 <= len(data):
        _, included, flags, _, ts = struct.unpack(">IIIIQ", data[offset:offset + 24])
        if offset + 24 + included > len(data):
            break
        seconds = (ts - BTSNOOP_EPOCH_DELTA) / 1e6 + UNIX_2000
        yield flags >> 16, flags & 0xFFFF, seconds, data[offset + 24:offset + 24 + included]
        offset += 24 + included


def l2cap_frames(data):
    """(index, direction, connection, time, cid, payload) of every complete L2CAP frame over ACL."""
    partial = {}
    for index, opcode, seconds, payload in records(data):
        if opcode not in (ACL_TX, ACL_RX) or len(payload) < 4:
            continue
        handle_flags, length = struct.unpack("<HH", payload[:4])
        handle, boundary = handle_flags & 0x0FFF, (handle_flags >> 12) & 0x3
        key = (index, opcode, handle)
        fragment = payload[4:4 + length]
        if boundary in (0, 2):  # the start of an L2CAP frame
            partial[key] = [seconds, bytearray(fragment)]
        elif key in partial:  # a continuation
            partial[key][1] += fragment
        else:
            continue
        started, frame = partial[key]
        if len(frame) >= 4:
            size, cid = struct.unpack("<HH", frame[:4])
            if len(frame) >= 4 + size:
                del partial[key]
                yield index, opcode, handle, started, cid, bytes(frame[4:4 + size])


def main(argv):
    rest, args = list(argv), []
    controller, since, until, min_gap, smp_expected = None, 0.0, float("inf"), None, None
    while rest:
        option = rest.pop(0)
        if not option.startswith("--"):
            args.append(option)
            continue
        value = rest.pop(0)
        if option == "--controller":
            controller = int(value.removeprefix("hci"))
        elif option == "--since":
            since = float(value)
        elif option == "--until":
            until = float(value)
        elif option == "--min-gap":
            min_gap = float(value)
        elif option == "--smp-requests":
            smp_expected = int(value)
        else:
            raise SystemExit("FAIL: unknown option %s" % option)
    if controller is None or not args:
        raise SystemExit(__doc__)
    capture = open(args.pop(0), "rb").read()
    texts = args
    problems = []
    name = "hci%d" % controller

    total = sum(1 for _ in records(capture))
    first_last = [r[2] for r in records(capture)]
    print("capture: %d records, %.1f s (%s to %s)" % (
        total, (first_last[-1] - first_last[0]) if first_last else 0.0,
        "%.3f" % first_last[0] if first_last else "-", "%.3f" % first_last[-1] if first_last else "-"))

    notifications = []  # (time, connection, attribute handle, value)
    reads = {}  # connection -> the handle of its last Read Request (ATT: one request at a time)
    read_responses = []  # (connection, handle, value)
    smp_requests = 0
    for index, opcode, connection, seconds, cid, pdu in l2cap_frames(capture):
        if index != controller or not (since <= seconds <= until) or not pdu:
            continue
        if cid == 6 and pdu[0] == 0x01:
            smp_requests += 1
        if cid != 4:
            continue
        att = pdu[0]
        if opcode == ACL_RX and att in (0x0A, 0x0C) and len(pdu) >= 3:  # Read Request, Read Blob Request
            reads[connection] = struct.unpack("<H", pdu[1:3])[0]
        elif opcode == ACL_TX and att == 0x1B and len(pdu) >= 3:  # Handle Value Notification
            notifications.append((seconds, connection, struct.unpack("<H", pdu[1:3])[0], pdu[3:]))
        elif opcode == ACL_TX and att == 0x23:  # Multiple Handle Value Notification: (handle, length, value)...
            # bluetoothd sends this one to a client that asked for it (a BlueZ phone's GATT Client Features
            # bit 2), so each tuple is a notification of its own.
            rest = pdu[1:]
            while rest:
                if len(rest) < 4 or len(rest) < 4 + struct.unpack("<H", rest[2:4])[0]:
                    problems.append("a malformed multiple notification at %.3f: %s" % (seconds, pdu.hex()))
                    break
                handle, length = struct.unpack("<HH", rest[:4])
                notifications.append((seconds, connection, handle, rest[4:4 + length]))
                rest = rest[4 + length:]
        elif opcode == ACL_TX and att in (0x0B, 0x0D):  # Read Response, Read Blob Response
            read_responses.append((connection, reads.pop(connection, None), pdu[1:]))

    notified = {handle for _, _, handle, _ in notifications}
    for seconds, _, handle, value in notifications:
        if len(value) != 12:
            problems.append("a notification of handle 0x%04x with %d bytes at %.3f: %s"
                            % (handle, len(value), seconds, value.hex()))
    wake_reads = [(h, v) for _, h, v in read_responses if h in notified]
    for handle, value in wake_reads:
        if len(value) > 12:
            problems.append("a read of handle 0x%04x answered with %d bytes: %s" % (handle, len(value), value.hex()))
    other = sorted({(h, len(v)) for _, h, v in read_responses if h not in notified}, key=lambda p: (p[0] or 0, p[1]))
    print("%s sent %d notifications (handles %s, lengths %s), %d reads of them; other read responses "
          "(bluetoothd's own values): %s" % (
              name, len(notifications), " ".join("0x%04x" % h for h in sorted(notified)) or "none",
              " ".join(str(n) for n in sorted({len(v) for *_, v in notifications})) or "none",
              len(wake_reads), " ".join("0x%04x:%d" % ((h or 0), n) for h, n in other) or "none"))
    if not notifications:
        problems.append("no notification from %s in the capture (was the capture recording?)" % name)

    if min_gap is not None:
        gaps = []
        for handle in notified:
            times = [t for t, _, h, _ in notifications if h == handle]
            gaps += [b - a for a, b in zip(times, times[1:])]
        print("notification gaps on %s (s): %s" % (name, " ".join("%.3f" % g for g in gaps) or "none"))
        if gaps and min(gaps) < min_gap:
            problems.append("two notifications %.3f s apart on %s (at least %.3f s expected)" % (min(gaps), name, min_gap))
        print("min gap: %s" % ("%.3f" % min(gaps) if gaps else "inf"))

    print("SMP pairing requests on %s: %d" % (name, smp_requests))
    if smp_expected is not None and smp_requests != smp_expected:
        problems.append("%d SMP pairing requests on %s (%d expected)" % (smp_requests, name, smp_expected))

    for text in texts:
        for encoded in (text.encode("utf-8"), text.encode("utf-16-le")):
            if encoded in capture:
                problems.append("task text %r appears in the capture" % text)

    for problem in problems:
        print(problem)
    if problems:
        print("FAIL: %d finding(s)" % len(problems))
    else:
        print("ok: %d notifications from %s, all 12 bytes; %d reads of them, none over 12 bytes; "
              "none of %d task texts in the capture" % (len(notifications), name, len(wake_reads), len(texts)))


if __name__ == "__main__":
    main(sys.argv[1:])
