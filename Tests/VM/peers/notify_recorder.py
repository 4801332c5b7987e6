#!/usr/bin/python3
"""A desktop notification server for the real-stack scenario: owns org.freedesktop.Notifications on the
session bus it is started on and writes every Notify call as one JSON line to the file it is given.

The scenario runs it in the logged-in person's session, so aiden-phone's desktop notifications cross a
real user manager, a real session bus and the user unit's sandbox. (dunst under Xvfb, a real server that
draws, is what the host's NotificationServerTests use; here the guest runs under TCG, where a recorder is
enough to prove the path.) It advertises `body-markup`, so the phone escapes board text for it, and
`actions`, so the phone offers its buttons (Stop, Done, Dismiss); the scenario presses one as a person
clicking it would: `Press(id, action_key)` on org.aidenbridge.VMRecorder (this object) makes the server
emit `ActionInvoked`, exactly the signal a real server sends, from the name that owns
org.freedesktop.Notifications. As the specification has it, a notification whose `resident` hint is true
stays after the press (its buttons too, until the phone replaces it); any other is closed then
(`NotificationClosed`, reason 2, dismissed by the user), as dunst and mako do. A notification replaced in
place keeps its id, and one that was closed is shown again under the id it is given back.

Usage: notify_recorder.py OUTPUT_FILE
Needs Debian's python3-dbus and python3-gi.
"""
import json
import sys
import time

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
CONTROL = "org.aidenbridge.VMRecorder"


class Server(dbus.service.Object):
    def __init__(self, bus, output):
        super().__init__(bus, PATH)
        self.output = output
        self.next_id = 1
        self.actions = {}  # id -> the action keys it offers, while it is shown
        self.resident = {}  # id -> its `resident` hint, while it is shown

    @dbus.service.method(NAME, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["body", "body-markup", "actions"]

    @dbus.service.method(NAME, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("vm-notify-recorder", "AidenBridge", "1", "1.2")

    @dbus.service.method(NAME, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout):
        number = int(replaces) if replaces else self.next_id
        if not replaces:
            self.next_id += 1
        keys = [str(a) for a in actions[0::2]]
        self.actions[number] = keys
        self.resident[number] = bool(hints.get("resident", False))
        record = {"id": number, "app": str(app), "summary": str(summary), "body": str(body),
                  "urgency": int(hints.get("urgency", -1)), "category": str(hints.get("category", "")),
                  "resident": self.resident[number], "actions": [str(a) for a in actions]}
        with open(self.output, "a") as out:
            out.write(json.dumps(record) + "\n")
        return number

    @dbus.service.method(NAME, in_signature="u", out_signature="")
    def CloseNotification(self, number):
        self.actions.pop(int(number), None)
        self.resident.pop(int(number), None)
        self.NotificationClosed(number, 3)  # closed by a CloseNotification call

    @dbus.service.signal(NAME, signature="us")
    def ActionInvoked(self, number, key):
        pass

    @dbus.service.signal(NAME, signature="uu")
    def NotificationClosed(self, number, reason):
        pass

    @dbus.service.method(CONTROL, in_signature="us", out_signature="")
    def Press(self, number, key):
        """What a click on the button does: only an action the notification offers, on one still shown; a
        resident one stays, any other is closed."""
        number = int(number)
        if str(key) not in self.actions.get(number, []):
            raise dbus.exceptions.DBusException(
                "notification %d offers no action %r (offers %r)" % (number, str(key), self.actions.get(number)),
                name=CONTROL + ".NoSuchAction")
        at = time.time()
        self.ActionInvoked(number, key)
        kept = self.resident.get(number, False)
        if not kept:
            self.actions.pop(number, None)
            self.resident.pop(number, None)
            self.NotificationClosed(number, 2)
        with open(self.output, "a") as out:
            out.write(json.dumps({"pressed": number, "action": str(key), "at": at, "closed": not kept}) + "\n")


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
