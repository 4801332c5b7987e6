#!/usr/bin/python3
"""The desktop for the bench: a notification server, a StatusNotifierWatcher and a KDE job view server on the
bus it is given, so every surface of aiden-phone is live, and a notification server that records and presses.

It prints one JSON line per notification call the moment it arrives, stamped with CLOCK_MONOTONIC (the clock
of the bench's own `time.perf_counter_ns()`), so the bench can tell how long an agent's write took to reach
the desktop. It answers as a real server does (ids from 1, `replaces_id` kept, the capabilities dunst offers)
and does no drawing, so what is measured is aiden-phone's side: the fetch, the plan and the D-Bus call.

A line on its standard input, {"invoke": ID, "action": KEY}, presses a button as a person's click does: it
emits `ActionInvoked(ID, KEY)` to the notification's sender and prints {"invoked_ns": …}, stamped just
before the signal is sent, so the bench can time a press on the surface to the agent hearing it.

The watcher takes `RegisterStatusNotifierItem` (the tray item then registers as on a desktop with a tray) and
the job view server answers `requestView` with a view whose calls it takes and drops, so the phone's RSS and
idle wake-ups are measured with all of its surfaces in use; each prints a line ({"tray_item": …},
{"job_view": …}), so the bench knows they are.

usage: bench/notification-recorder.py   (DBUS_SESSION_BUS_ADDRESS names the private bus)

The first line, {"ready": true}, says every name is owned.
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
WATCHER = "org.kde.StatusNotifierWatcher"
JOBS = "org.kde.JobViewServer"
JOBS_V2 = "org.kde.JobViewServerV2"
VIEW = "org.kde.JobViewV2"


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
        emit({"at_ns": at, "id": number, "replaces": int(replaces), "summary": str(summary), "body": str(body),
              "actions": [str(action) for action in actions[::2]]})
        return number

    @dbus.service.method(NAME, in_signature="u", out_signature="")
    def CloseNotification(self, number):
        emit({"at_ns": time.perf_counter_ns(), "closed": int(number)})

    @dbus.service.signal(NAME, signature="us")
    def ActionInvoked(self, number, key):
        pass


class Watcher(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/StatusNotifierWatcher")
        self.items = []

    @dbus.service.method(WATCHER, in_signature="s", out_signature="", sender_keyword="sender")
    def RegisterStatusNotifierItem(self, service, sender=None):
        self.items.append(str(service) if str(service).startswith(":") else f"{sender}{service}")
        emit({"at_ns": time.perf_counter_ns(), "tray_item": self.items[-1]})

    @dbus.service.method(WATCHER, in_signature="s", out_signature="")
    def RegisterStatusNotifierHost(self, service):
        pass

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return {"RegisteredStatusNotifierItems": dbus.Array(self.items, signature="s"),
                "IsStatusNotifierHostRegistered": True, "ProtocolVersion": dbus.Int32(0)}[str(name)]


class View(dbus.service.Object):
    """A job's view: takes every call a client makes and keeps nothing."""

    @dbus.service.method(VIEW, in_signature="s", out_signature="")
    def terminate(self, message):
        self.remove_from_connection()

    @dbus.service.method(VIEW, in_signature="s", out_signature="")
    def setInfoMessage(self, message):
        pass

    @dbus.service.method(VIEW, in_signature="uss", out_signature="b")
    def setDescriptionField(self, number, name, value):
        return True

    @dbus.service.method(VIEW, in_signature="u", out_signature="")
    def clearDescriptionField(self, number):
        pass

    @dbus.service.method(VIEW, in_signature="u", out_signature="")
    def setPercent(self, percent):
        pass

    @dbus.service.method(VIEW, in_signature="u", out_signature="")
    def setError(self, code):
        pass


class JobServer(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/JobViewServer")
        self.bus = bus
        self.views = 0

    @dbus.service.method(JOBS_V2, in_signature="sia{sv}", out_signature="o")
    def requestView(self, desktop_entry, capabilities, hints):
        self.views += 1
        path = f"/JobViewServer/JobView_{self.views}"
        View(self.bus, path)
        emit({"at_ns": time.perf_counter_ns(), "job_view": path})
        return dbus.ObjectPath(path)


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    server, watcher, jobs = Server(bus), Watcher(bus), JobServer(bus)
    names = [dbus.service.BusName(name, bus, do_not_queue=True) for name in (NAME, WATCHER, JOBS)]

    def command(source, condition):
        line = sys.stdin.readline()
        if not line:
            return False
        request = json.loads(line)
        emit({"invoked_ns": time.perf_counter_ns(), "id": request["invoke"]})
        server.ActionInvoked(dbus.UInt32(request["invoke"]), request["action"])
        return True

    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, command)
    emit({"ready": True})
    try:
        GLib.MainLoop().run()
    finally:
        del names, server, watcher, jobs


if __name__ == "__main__":
    main()
