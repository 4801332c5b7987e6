#!/usr/bin/python3
"""A system tray for the real-stack scenario: the StatusNotifierWatcher and its host on the session bus it is
started on, as a panel (waybar, KDE's, GNOME's AppIndicator extension) runs them, written to the
StatusNotifierItem and dbusmenu specifications that docs/desktop.md describes.

It owns org.kde.StatusNotifierWatcher and registers itself as the host, so aiden-phone's tray item finds a
panel to register with; on each registration it reads the item's properties (Status, Title, Menu) as a host
does, and forgets the item when its connection leaves the bus. The scenario presses a menu entry as a person
clicking it would: `Press(task_text, label)` on org.aidenbridge.VMTray (this object) reads the item's menu
with `GetLayout`, finds the entry labelled `label` under the line holding `task_text`, and sends the item
`Event(id, "clicked", 0, timestamp)`, exactly what a panel sends. Every registration, menu read and press is
written as one JSON line to the file it is given.

Usage: tray_host.py OUTPUT_FILE
Needs Debian's python3-dbus and python3-gi.
"""
import json
import sys
import time

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

WATCHER = "org.kde.StatusNotifierWatcher"
PATH = "/StatusNotifierWatcher"
ITEM = "org.kde.StatusNotifierItem"
MENU = "com.canonical.dbusmenu"
CONTROL = "org.aidenbridge.VMTray"


class Watcher(dbus.service.Object):
    def __init__(self, bus, output):
        super().__init__(bus, PATH)
        self.bus = bus
        self.output = output
        self.items = {}  # "service/path" -> (bus name, object path)
        bus.add_signal_receiver(self.owner_changed, "NameOwnerChanged", "org.freedesktop.DBus",
                                "org.freedesktop.DBus", "/org/freedesktop/DBus")

    def record(self, **fields):
        fields["at"] = time.time()
        with open(self.output, "a") as out:
            out.write(json.dumps(fields) + "\n")

    # The watcher, as the specification gives it.

    @dbus.service.method(WATCHER, in_signature="s", out_signature="", sender_keyword="sender")
    def RegisterStatusNotifierItem(self, service, sender=None):
        # A bus name (the item at /StatusNotifierItem) or an object path on the caller's connection.
        name, path = (sender, str(service)) if str(service).startswith("/") else (str(service), "/StatusNotifierItem")
        key = name + path
        self.items[key] = (name, path)
        self.StatusNotifierItemRegistered(key)
        # Read as a host does, once the registration is answered (the item may wait for that answer).
        GLib.idle_add(self.read_item, key, name, path, str(sender))

    def read_item(self, key, name, path, sender):
        props = dbus.Interface(self.bus.get_object(name, path), "org.freedesktop.DBus.Properties")
        try:
            seen = {k: str(props.Get(ITEM, k)) for k in ("Status", "Title", "Menu", "IconName")}
        except dbus.exceptions.DBusException as error:
            seen = {"error": str(error)}
        self.record(registered=key, sender=sender, properties=seen)
        return False

    @dbus.service.method(WATCHER, in_signature="s", out_signature="")
    def RegisterStatusNotifierHost(self, service):
        pass

    @dbus.service.signal(WATCHER, signature="s")
    def StatusNotifierItemRegistered(self, service):
        pass

    @dbus.service.signal(WATCHER, signature="s")
    def StatusNotifierItemUnregistered(self, service):
        pass

    @dbus.service.signal(WATCHER, signature="")
    def StatusNotifierHostRegistered(self):
        pass

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, prop):
        return self.GetAll(interface)[str(prop)]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {
            "RegisteredStatusNotifierItems": dbus.Array(sorted(self.items), signature="s"),
            "IsStatusNotifierHostRegistered": dbus.Boolean(True),
            "ProtocolVersion": dbus.Int32(0),
        }

    def owner_changed(self, name, old, new):
        if new:
            return
        for key, (owner, _) in list(self.items.items()):
            if owner == name:
                del self.items[key]
                self.StatusNotifierItemUnregistered(key)
                self.record(unregistered=key)

    # What a person's click does.

    def menu(self):
        if not self.items:
            raise dbus.exceptions.DBusException("no tray item is registered", name=CONTROL + ".NoItem")
        name, path = sorted(self.items.values())[-1]
        props = dbus.Interface(self.bus.get_object(name, path), "org.freedesktop.DBus.Properties")
        menu_path = props.Get(ITEM, "Menu")
        return dbus.Interface(self.bus.get_object(name, menu_path), MENU)

    @dbus.service.method(CONTROL, in_signature="", out_signature="s")
    def Layout(self):
        """The menu's entries as JSON lines of [id, label, enabled], for the scenario's log."""
        _, (_, _, children) = self.menu().GetLayout(0, -1, dbus.Array([], signature="s"))
        entries = [[int(c[0]), str(c[1].get("label", "")), bool(c[1].get("enabled", True))] for c in children]
        self.record(layout=entries)
        return json.dumps(entries)

    @dbus.service.method(CONTROL, in_signature="ss", out_signature="i")
    def Press(self, task_text, label):
        """Clicks the enabled entry `label` in the block of the menu line that holds `task_text`."""
        menu = self.menu()
        _, (_, _, children) = menu.GetLayout(0, -1, dbus.Array([], signature="s"))
        entries = [(int(c[0]), c[1]) for c in children]
        inside = False
        for number, props in entries:
            text = str(props.get("label", ""))
            if str(props.get("type", "")) == "separator":
                inside = False
            elif str(task_text) in text:
                inside = True
            elif inside and text == str(label) and bool(props.get("enabled", True)):
                menu.Event(dbus.Int32(number), "clicked", dbus.Int32(0, variant_level=1),
                           dbus.UInt32(int(time.time()) & 0xFFFFFFFF))
                self.record(pressed=number, label=str(label), task=str(task_text))
                return number
        raise dbus.exceptions.DBusException(
            "no enabled %r under %r in the menu: %r" % (str(label), str(task_text),
                                                          [str(p.get("label", "")) for _, p in entries]),
            name=CONTROL + ".NoSuchEntry")


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    watcher = Watcher(bus, sys.argv[1])
    # Kept referenced: python-dbus releases the name when the BusName object is collected.
    name = dbus.service.BusName(WATCHER, bus, do_not_queue=True)
    watcher.StatusNotifierHostRegistered()
    print("owning %s on the session bus" % WATCHER, flush=True)
    GLib.MainLoop().run()
    del watcher, name


if __name__ == "__main__":
    main()
