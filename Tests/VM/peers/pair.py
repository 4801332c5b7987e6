#!/usr/bin/python3
"""Bonds a phone host's adapter with the board over BlueZ, the way docs/bluetooth.md tells a user to.

It does what the documented bluetoothctl session does (an agent with NoInputNoOutput, discovery filtered
on the Wake service, pair, trust), through the same D-Bus calls, so the harness can check each step. One
difference, for the lab only: its agent is registered but not made the default. The guest's single
bluetoothd serves both the board's and the host's controller, and the board's agent must stay the default
one (it answers the board side of the pairing); on real hardware each side has its own bluetoothd.

Usage: pair.py --adapter hci1 --address AA:BB:CC:DD:EE:FF [--timeout 45]
Prints one line per step; exits 0 when the device is Paired and Trusted.
Needs Debian's python3-dbus and python3-gi.
"""
import argparse
import sys
import time

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

BLUEZ = "org.bluez"
WAKE_SERVICE = "a1de0001-7c4b-4f52-8d9a-6b4f6e6f7469"
AGENT_PATH = "/aidenbridge/vm/pair_agent"


def log(message):
    print("[pair %.2f] %s" % (time.monotonic(), message), flush=True)


class Agent(dbus.service.Object):
    """Just Works from the initiating side: nothing to show, nothing to type; confirmations accepted."""

    @dbus.service.method("org.bluez.Agent1", in_signature="", out_signature="")
    def Release(self):
        pass

    @dbus.service.method("org.bluez.Agent1", in_signature="ou", out_signature="")
    def RequestConfirmation(self, device, passkey):
        log("RequestConfirmation %s %06d: accepted" % (device, passkey))

    @dbus.service.method("org.bluez.Agent1", in_signature="o", out_signature="")
    def RequestAuthorization(self, device):
        log("RequestAuthorization %s: accepted" % device)

    @dbus.service.method("org.bluez.Agent1", in_signature="os", out_signature="")
    def AuthorizeService(self, device, uuid):
        log("AuthorizeService %s %s: accepted" % (device, uuid))

    @dbus.service.method("org.bluez.Agent1", in_signature="", out_signature="")
    def Cancel(self):
        log("Cancel")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--adapter", required=True)
    parser.add_argument("--address", required=True)
    parser.add_argument("--timeout", type=float, default=45.0)
    args = parser.parse_args()
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    adapter_path = "/org/bluez/" + args.adapter
    device_path = adapter_path + "/dev_" + args.address.upper().replace(":", "_")
    Agent(bus, AGENT_PATH)
    manager = dbus.Interface(bus.get_object(BLUEZ, "/org/bluez"), "org.bluez.AgentManager1")
    manager.RegisterAgent(AGENT_PATH, "NoInputNoOutput")
    log("agent registered (NoInputNoOutput, not the default agent)")
    adapter = dbus.Interface(bus.get_object(BLUEZ, adapter_path), "org.bluez.Adapter1")
    objects = dbus.Interface(bus.get_object(BLUEZ, "/"), "org.freedesktop.DBus.ObjectManager")
    deadline = time.monotonic() + args.timeout

    def device_known():
        return dbus.ObjectPath(device_path) in objects.GetManagedObjects()

    if not device_known():
        adapter.SetDiscoveryFilter({"Transport": "le", "UUIDs": dbus.Array([WAKE_SERVICE], "s")})
        adapter.StartDiscovery()
        log("discovering on %s (LE, Wake service)" % args.adapter)
        while not device_known():
            if time.monotonic() > deadline:
                log("FAIL: %s never seen on %s" % (args.address, args.adapter))
                return 1
            time.sleep(0.3)
        adapter.StopDiscovery()
    log("found %s" % device_path)
    device = dbus.Interface(bus.get_object(BLUEZ, device_path), "org.bluez.Device1")
    properties = dbus.Interface(bus.get_object(BLUEZ, device_path), "org.freedesktop.DBus.Properties")
    loop = GLib.MainLoop()
    outcome = {}

    def done(error=None):
        outcome["error"] = error
        loop.quit()

    started = time.monotonic()
    device.Pair(reply_handler=lambda: done(), error_handler=lambda e: done(e), timeout=args.timeout)
    GLib.timeout_add(int(args.timeout * 1000), lambda: done("timed out") or False)
    loop.run()
    if outcome.get("error") is not None and "AlreadyExists" not in str(outcome["error"]):
        log("FAIL: Pair: %s" % outcome["error"])
        return 1
    log("paired in %.2f s" % (time.monotonic() - started))
    properties.Set("org.bluez.Device1", "Trusted", dbus.Boolean(True))
    paired = bool(properties.Get("org.bluez.Device1", "Paired"))
    trusted = bool(properties.Get("org.bluez.Device1", "Trusted"))
    log("Paired=%s Trusted=%s" % (paired, trusted))
    manager.UnregisterAgent(AGENT_PATH)
    return 0 if paired and trusted else 1


if __name__ == "__main__":
    sys.exit(main())
