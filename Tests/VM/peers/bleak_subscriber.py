"""An independent central: bleak (PyPI, its own D-Bus client) subscribes to aiden-board's Wake.

It joins the link the phone already has (no scan, no disconnect at the end: the harness ends it with
SIGKILL so the phone's link stays up) and writes one line per notification: monotonic time, length,
hex value. Usage: bleak_subscriber.py ADAPTER ADDRESS OUTFILE
"""
import asyncio
import sys
import time

from bleak import BleakClient
from bleak.backends.device import BLEDevice

WAKE_CHARACTERISTIC = "a1de0002-7c4b-4f52-8d9a-6b4f6e6f7469"


async def main(adapter, address, path):
    out = open(path, "a", buffering=1)
    object_path = "/org/bluez/%s/dev_%s" % (adapter, address.upper().replace(":", "_"))
    device = BLEDevice(address, None, {"path": object_path, "props": {}})
    client = BleakClient(device, adapter=adapter, timeout=30.0)
    await client.connect()
    print("connected %s" % object_path, flush=True)

    def received(_characteristic, data: bytearray):
        out.write("%.3f %d %s\n" % (time.monotonic(), len(data), data.hex()))

    await client.start_notify(WAKE_CHARACTERISTIC, received)
    print("subscribed", flush=True)
    out.write("subscribed\n")
    while True:
        await asyncio.sleep(3600)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
