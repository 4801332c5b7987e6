#!/usr/bin/python3
"""A notification server for the bench: serves org.freedesktop.Notifications on the bus it is given and
prints one JSON line per call the moment it arrives, stamped with CLOCK_MONOTONIC (the clock of the bench's
own `time.perf_counter_ns()`), so the bench can tell how long an agent's write took to reach the desktop.

usage: bench/notification-recorder.py   (DBUS_SESSION_BUS_ADDRESS names the private bus)

It answers as a real server does (ids from 1, `replaces_id` kept, the capabilities dunst offers) and does
no drawing, so what is measured is aiden-phone's side: the fetch, the plan and the D-Bus call. The first
line, {"ready": true}, says the name is owned.
"""
import json
import sys
import time

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


def emit(record):
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


class Server(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, PATH)
        self.next_id = 1

    @dbus.service.method(NAME, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["actions", "body", "body-markup", "persistence"]

    @dbus.service.method(NAME, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ["bench-recorder", "AidenBridge", "1", "1.2"]

    @dbus.service.method(NAME, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout):
        at = time.perf_counter_ns()
        number = int(replaces) or self.next_id
        if not replaces:
            self.next_id += 1
        emit({"at_ns": at, "id": number, "replaces": int(replaces), "summary": str(summary), "body": str(body)})
        return number

    @dbus.service.method(NAME, in_signature="u", out_signature="")
    def CloseNotification(self, number):
        emit({"at_ns": time.perf_counter_ns(), "closed": int(number)})


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    server = Server(bus)
    name = dbus.service.BusName(NAME, bus, do_not_queue=True)
    emit({"ready": True})
    try:
        GLib.MainLoop().run()
    finally:
        del name, server


if __name__ == "__main__":
    main()
