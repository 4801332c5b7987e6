#!/usr/bin/python3
"""An independent peripheral: a Wake service written with python-dbus after BlueZ's GATT server example.

It registers a GATT application (the Wake service, one read+notify characteristic) and an advertisement
with the Wake service UUID on an adapter, and while a central is subscribed it notifies a 12-byte Wake
envelope (version 1, reason live_activity, its own epoch, a growing sequence) every --interval seconds.
aiden-phone must follow it: every Wake makes it fetch the board's snapshot over HTTP.

With --epoch 0 --aiden it is a board of the Aiden profile (docs/aiden-compatibility.md): no epoch, a
sequence that starts at 1 again with every process (as it does anyway here: each run counts from 1), and
the reasons 0 to 5 in turn instead of live_activity alone.

Usage: wake_peripheral.py --adapter hci0 [--epoch 4242] [--interval 0.5] [--aiden]
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

    def __init__(self, bus, epoch, aiden):
        super().__init__(bus, CHARACTERISTIC)
        self.epoch = epoch
        self.aiden = aiden
        self.sequence = 0
        self.notifying = False

    def reason(self):
        return self.sequence % 6 if self.aiden else 4

    def envelope(self):
        return bytes([1, self.reason()]) + struct.pack("<HQ", self.epoch, self.sequence)

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
        log("StartNotify")
        self.notifying = True

    @dbus.service.method("org.bluez.GattCharacteristic1")
    def StopNotify(self):
        log("StopNotify")
        self.notifying = False

    @dbus.service.signal(PROPERTIES, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    def tick(self):
        if self.notifying:
            self.sequence += 1
            self.PropertiesChanged("org.bluez.GattCharacteristic1",
                                   {"Value": dbus.Array(self.envelope(), "y")}, [])
            log("Wake reason=%d epoch=%d seq=%d" % (self.reason(), self.epoch, self.sequence))
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--adapter", default="hci0")
    parser.add_argument("--epoch", type=int, default=4242)
    parser.add_argument("--interval", type=float, default=0.5)
    parser.add_argument("--aiden", action="store_true", help="reasons 0 to 5 in turn, as an Aiden board sends")
    args = parser.parse_args()
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    adapter = bus.get_object(BLUEZ, "/org/bluez/" + args.adapter)
    characteristic = Characteristic(bus, args.epoch, args.aiden)
    Application(bus, [Service(bus), characteristic])
    Advertisement(bus)
    loop = GLib.MainLoop()

    def failed(what):
        return lambda error: (log("FAIL: %s: %s" % (what, error)), loop.quit())

    dbus.Interface(adapter, "org.bluez.GattManager1").RegisterApplication(
        APP, {}, reply_handler=lambda: log("application registered"),
        error_handler=failed("RegisterApplication"))
    dbus.Interface(adapter, "org.bluez.LEAdvertisingManager1").RegisterAdvertisement(
        ADVERTISEMENT, {}, reply_handler=lambda: log("advertisement registered"),
        error_handler=failed("RegisterAdvertisement"))
    GLib.timeout_add(int(args.interval * 1000), characteristic.tick)
    loop.run()
    return 1


if __name__ == "__main__":
    sys.exit(main())
