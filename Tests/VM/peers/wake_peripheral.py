#!/usr/bin/python3
"""An independent peripheral: a Wake service written with python-dbus after BlueZ's GATT server example.

It registers a GATT application (the Wake service, one read+notify characteristic) and an advertisement
with the Wake service UUID on an adapter, and while a central is subscribed it notifies a 12-byte Wake
envelope (version 1, reason live_activity, its own epoch, a growing sequence) every --interval seconds.
aiden-phone must follow it: every Wake makes it fetch the board's snapshot over HTTP.

`peers/aiden_profile_board.py` imports its GATT objects (`serve`) and sends a Wake only when its task
changes (`Characteristic.wake`) instead of on a timer.

Usage: wake_peripheral.py --adapter hci0 [--epoch 4242] [--interval 0.5]
Needs Debian's python3-dbus and python3-gi.
"""
import argparse
import struct
import sys
import time

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

BLUEZ = "org.bluez"
PROPERTIES = "org.freedesktop.DBus.Properties"
SERVICE_UUID = "a1de0001-7c4b-4f52-8d9a-6b4f6e6f7469"
CHARACTERISTIC_UUID = "a1de0002-7c4b-4f52-8d9a-6b4f6e6f7469"
APP = "/vmpeer"
SERVICE = APP + "/service0"
CHARACTERISTIC = SERVICE + "/char0"
ADVERTISEMENT = "/vmpeer_advertisement0"


def log(message):
    print("[peripheral %.2f] %s" % (time.monotonic(), message), flush=True)


def envelope(reason, epoch, sequence):
    """The 12-byte Wake: version 1, the reason, the epoch (bytes 2-3) and the sequence, little-endian."""
    return bytes([1, reason]) + struct.pack("<HQ", epoch, sequence)


class Application(dbus.service.Object):
    def __init__(self, bus, objects):
        self.objects = objects
        super().__init__(bus, APP)

    @dbus.service.method("org.freedesktop.DBus.ObjectManager", out_signature="a{oa{sa{sv}}}")
    def GetManagedObjects(self):
        return {o.path: o.properties() for o in self.objects}


class Service(dbus.service.Object):
    path = SERVICE

    def __init__(self, bus):
        super().__init__(bus, SERVICE)

    def properties(self):
        return {"org.bluez.GattService1": {
            "UUID": SERVICE_UUID, "Primary": True,
            "Characteristics": dbus.Array([dbus.ObjectPath(CHARACTERISTIC)], "o")}}

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return self.properties()[interface]


class Characteristic(dbus.service.Object):
    path = CHARACTERISTIC

    def __init__(self, bus, epoch, say=log):
        super().__init__(bus, CHARACTERISTIC)
        self.epoch = epoch
        self.say = say
        self.sequence = 0
        self.reason = 4
        self.notifying = False

    def envelope(self):
        return envelope(self.reason, self.epoch, self.sequence)

    def properties(self):
        return {"org.bluez.GattCharacteristic1": {
            "UUID": CHARACTERISTIC_UUID, "Service": dbus.ObjectPath(SERVICE),
            "Flags": dbus.Array(["read", "notify"], "s"),
            "Value": dbus.Array(self.envelope(), "y")}}

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return self.properties()[interface]

    @dbus.service.method("org.bluez.GattCharacteristic1", in_signature="a{sv}", out_signature="ay")
    def ReadValue(self, options):
        return dbus.Array(self.envelope(), "y")

    @dbus.service.method("org.bluez.GattCharacteristic1")
    def StartNotify(self):
        self.say("StartNotify")
        self.notifying = True

    @dbus.service.method("org.bluez.GattCharacteristic1")
    def StopNotify(self):
        self.say("StopNotify")
        self.notifying = False

    @dbus.service.signal(PROPERTIES, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    def wake(self, reason=4):
        """One Wake: the next sequence with REASON, notified when a central is subscribed (the value is
        what a read returns either way). Returns whether it was notified. Called on the main loop."""
        self.sequence += 1
        self.reason = reason
        if self.notifying:
            self.PropertiesChanged("org.bluez.GattCharacteristic1",
                                   {"Value": dbus.Array(self.envelope(), "y")}, [])
        self.say("Wake reason=%d epoch=%d seq=%d%s" % (reason, self.epoch, self.sequence,
                                                         "" if self.notifying else " (not notified: no subscriber)"))
        return self.notifying

    def tick(self):
        if self.notifying:
            self.wake()
        return True


class Advertisement(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, ADVERTISEMENT)

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {"Type": "peripheral", "ServiceUUIDs": dbus.Array([SERVICE_UUID], "s"),
                "LocalName": "vm-peer"}

    @dbus.service.method("org.bluez.LEAdvertisement1")
    def Release(self):
        log("advertisement released")


def serve(adapter_name, epoch, loop, say=log):
    """The Wake service and its advertisement on ADAPTER_NAME, answered on LOOP (a GLib main loop, which
    ends when BlueZ refuses either); returns the characteristic."""
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    adapter = bus.get_object(BLUEZ, "/org/bluez/" + adapter_name)
    characteristic = Characteristic(bus, epoch, say)
    Application(bus, [Service(bus), characteristic])
    Advertisement(bus)

    def failed(what):
        return lambda error: (say("FAIL: %s: %s" % (what, error)), loop.quit())

    dbus.Interface(adapter, "org.bluez.GattManager1").RegisterApplication(
        APP, {}, reply_handler=lambda: say("application registered"),
        error_handler=failed("RegisterApplication"))
    dbus.Interface(adapter, "org.bluez.LEAdvertisingManager1").RegisterAdvertisement(
        ADVERTISEMENT, {}, reply_handler=lambda: say("advertisement registered"),
        error_handler=failed("RegisterAdvertisement"))
    return characteristic


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--adapter", default="hci0")
    parser.add_argument("--epoch", type=int, default=4242)
    parser.add_argument("--interval", type=float, default=0.5)
    args = parser.parse_args()
    loop = GLib.MainLoop()
    characteristic = serve(args.adapter, args.epoch, loop)
    GLib.timeout_add(int(args.interval * 1000), characteristic.tick)
    loop.run()
    return 1


if __name__ == "__main__":
    sys.exit(main())
