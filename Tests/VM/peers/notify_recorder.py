#!/usr/bin/python3
"""A desktop notification server for the real-stack scenario: owns org.freedesktop.Notifications on the
session bus it is started on and writes every Notify call as one JSON line to the file it is given.

The scenario runs it in the logged-in person's session, so aiden-phone's desktop notifications cross a
real user manager, a real session bus and the user unit's sandbox. (dunst under Xvfb, a real server that
draws, is what the host's NotificationServerTests use; here the guest runs under TCG, where a recorder is
enough to prove the path.) It advertises `body-markup`, so the phone escapes board text for it.

Usage: notify_recorder.py OUTPUT_FILE
Needs Debian's python3-dbus and python3-gi.
"""
import json
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


class Server(dbus.service.Object):
    def __init__(self, bus, output):
        super().__init__(bus, PATH)
        self.output = output
        self.next_id = 1

    @dbus.service.method(NAME, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["body", "body-markup"]

    @dbus.service.method(NAME, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("vm-notify-recorder", "AidenBridge", "1", "1.2")

    @dbus.service.method(NAME, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout):
        number = self.next_id
        self.next_id += 1
        record = {"id": number, "app": str(app), "summary": str(summary), "body": str(body),
                  "urgency": int(hints.get("urgency", -1)), "category": str(hints.get("category", ""))}
        with open(self.output, "a") as out:
            out.write(json.dumps(record) + "\n")
        return number

    @dbus.service.method(NAME, in_signature="u", out_signature="")
    def CloseNotification(self, number):
        pass


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    server = Server(bus, sys.argv[1])
    # Kept referenced: python-dbus releases the name when the BusName object is collected.
    name = dbus.service.BusName(NAME, bus, do_not_queue=True)
    print("owning %s on the session bus" % NAME, flush=True)
    GLib.MainLoop().run()
    del server, name


if __name__ == "__main__":
    main()
