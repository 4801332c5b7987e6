#!/usr/bin/python3
"""The air capture of the real-stack scenario: every packet of every controller, from the kernel's Bluetooth
monitor channel, written as a btsnoop "monitor" capture (the format `btmon -w` writes and `btmon -r` and
air_check.py read).

Why not `btmon -w`: in the guest it stops recording minutes into the run while it keeps running (the last
records are its own "RAW Open"/"RAW Close"; Tests/VM/README.md, "The air capture ends early"). This reader
does nothing but copy: one record per packet, as the kernel hands them over with the kernel's own receive
timestamp, flushed at once, so a capture read while the run goes on is whole up to its last record.

Usage: hci_capture.py OUTPUT    (as root: the monitor channel needs CAP_NET_RAW; runs until SIGTERM)
"""
import ctypes
import os
import signal
import socket
import struct
import sys
import time

HCI_DEV_NONE = 0xFFFF
HCI_CHANNEL_MONITOR = 2
SOL_SOCKET, SO_TIMESTAMP = 1, 29  # Linux, x86_64 and arm64
BTSNOOP_EPOCH_DELTA = 0x00E03AB44A676000  # btsnoop's microseconds since year 0 minus 2000-01-01
UNIX_2000 = 946684800


def monitor_socket():
    sock = socket.socket(socket.AF_BLUETOOTH, socket.SOCK_RAW, socket.BTPROTO_HCI)
    # Python's bind for HCI takes a device only; the channel needs the whole struct sockaddr_hci.
    address = struct.pack("<HHH", socket.AF_BLUETOOTH, HCI_DEV_NONE, HCI_CHANNEL_MONITOR)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.bind(sock.fileno(), ctypes.c_char_p(address), len(address)) != 0:
        raise SystemExit("hci_capture: binding the monitor channel failed: %s" % os.strerror(ctypes.get_errno()))
    sock.setsockopt(SOL_SOCKET, SO_TIMESTAMP, 1)
    return sock


def main():
    output = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(output, b"btsnoop\0" + struct.pack(">II", 1, 2001))
    sock = monitor_socket()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("capturing every controller's packets to %s" % sys.argv[1], flush=True)
    while True:
        data, ancillary, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(16))
        if len(data) < 6:
            continue
        opcode, index, length = struct.unpack("<HHH", data[:6])
        payload = data[6:6 + length]
        seconds = time.time()
        for level, kind, value in ancillary:
            if level == SOL_SOCKET and kind == SO_TIMESTAMP and len(value) >= 16:
                whole, micro = struct.unpack("qq", value[:16])
                seconds = whole + micro / 1e6
        stamp = int(round((seconds - UNIX_2000) * 1e6)) + BTSNOOP_EPOCH_DELTA
        header = struct.pack(">IIIIQ", len(payload), len(payload), (index << 16) | opcode, 0, stamp)
        os.write(output, header + payload)


if __name__ == "__main__":
    main()
