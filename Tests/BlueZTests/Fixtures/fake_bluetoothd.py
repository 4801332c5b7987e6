#!/usr/bin/python3
"""A fake bluetoothd for AidenBridge's BlueZ tests: owns org.bluez on a private bus and behaves like
bluetoothd 5.66 as far as the Wake peripheral (--role board) or the Wake central (--role phone) can tell.

It prints one line per event on stdout (flushed), which the Swift tests read:

  ready                                   the name is owned and the objects exist
  registered-application SENDER PATH     after checking the app's objects like bluetoothd does
  rejected-application REASON            the app's objects are not what bluetoothd accepts
  start-notify-ok / start-notify-error E  the StartNotify it made on the registered characteristic
  value HEX                               a PropertiesChanged(Value) from the registered characteristic
  advertisement KEY=VALUE;...             the GetAll(LEAdvertisement1) it made on RegisterAdvertisement
  set NAME VALUE                          an Adapter1 property set by a client
  agent METHOD ARGS                       agent manager calls
  call METHOD ...                         phone role: adapter, device and characteristic calls

Control (for tests), interface org.aidenbridge.FakeBlueZ1 at /org/aidenbridge/fake:
  SetPowered(b)      power the adapter off/on (PropertiesChanged Powered)
  SetNotifying(b)    board role: the phone stops (StopNotify) or starts (StartNotify) notifications again on
                     the registered characteristic; prints stop-notify-ok / start-notify-ok
  DropConnection()   phone role: the board went away (ServicesResolved/Connected false, objects removed)

Phone role, --known-device paired-trusted|paired|unpaired: the board's Device1 exists from the start (no RSSI:
not seen in this discovery), with Paired and Trusted as named.
  Notify(ay)         phone role: one notification with these bytes

Deps: Debian python3-dbus, python3-gi (scripts/packages.txt).
"""
import argparse
import struct
import sys

import dbus
import dbus.exceptions
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

OM = 'org.freedesktop.DBus.ObjectManager'
PROP = 'org.freedesktop.DBus.Properties'
ADAPTER = 'org.bluez.Adapter1'
DEVICE = 'org.bluez.Device1'
GATT_MANAGER = 'org.bluez.GattManager1'
ADV_MANAGER = 'org.bluez.LEAdvertisingManager1'
AGENT_MANAGER = 'org.bluez.AgentManager1'
SERVICE = 'org.bluez.GattService1'
CHRC = 'org.bluez.GattCharacteristic1'
ADV = 'org.bluez.LEAdvertisement1'
CONTROL = 'org.aidenbridge.FakeBlueZ1'

WAKE_SERVICE = 'a1de0001-7c4b-4f52-8d9a-6b4f6e6f7469'
WAKE_CHAR = 'a1de0002-7c4b-4f52-8d9a-6b4f6e6f7469'


def out(*words):
    print(' '.join(str(w) for w in words), flush=True)


class BlueZError(dbus.exceptions.DBusException):
    def __init__(self, name, message):
        super().__init__(message, name='org.bluez.Error.' + name)


class InvalidArgs(dbus.exceptions.DBusException):
    _dbus_error_name = 'org.freedesktop.DBus.Error.InvalidArgs'


class PropertyObject(dbus.service.Object):
    """An object with properties per interface, Get/GetAll/Set and PropertiesChanged."""

    def __init__(self, bus, path, props, writable=()):
        self.path = path
        self.props = props
        self.writable = set(writable)
        super().__init__(bus, path)

    @dbus.service.method(PROP, in_signature='ss', out_signature='v')
    def Get(self, iface, name):
        try:
            return self.props[iface][name]
        except KeyError:
            raise InvalidArgs('no property %s.%s' % (iface, name))

    @dbus.service.method(PROP, in_signature='s', out_signature='a{sv}')
    def GetAll(self, iface):
        if iface not in self.props:
            raise InvalidArgs('no interface ' + iface)
        return self.props[iface]

    @dbus.service.method(PROP, in_signature='ssv')
    def Set(self, iface, name, value):
        if (iface, name) not in self.writable:
            raise InvalidArgs('property %s.%s is not writable here' % (iface, name))
        out('set', name, value_text(value))
        self.update(iface, {name: value})

    @dbus.service.signal(PROP, signature='sa{sv}as')
    def PropertiesChanged(self, iface, changed, invalidated):
        pass

    def update(self, iface, changed):
        self.props[iface].update(changed)
        self.PropertiesChanged(iface, changed, dbus.Array([], 's'))


def value_text(value):
    if isinstance(value, dbus.Boolean):
        return 'true' if value else 'false'
    if isinstance(value, dbus.Array) and all(isinstance(b, dbus.Byte) for b in value):
        return bytes(value).hex()
    return str(value)


class Root(dbus.service.Object):
    """bluetoothd's ObjectManager at /."""

    def __init__(self, bus):
        self.objects = {}
        super().__init__(bus, '/')

    @dbus.service.method(OM, out_signature='a{oa{sa{sv}}}')
    def GetManagedObjects(self):
        return {dbus.ObjectPath(p): o.props for p, o in self.objects.items()}

    @dbus.service.signal(OM, signature='oa{sa{sv}}')
    def InterfacesAdded(self, path, interfaces):
        pass

    @dbus.service.signal(OM, signature='oas')
    def InterfacesRemoved(self, path, interfaces):
        pass

    def add(self, obj, announce=True):
        self.objects[obj.path] = obj
        if announce:
            self.InterfacesAdded(dbus.ObjectPath(obj.path), obj.props)

    def add_interface(self, obj, iface, props):
        obj.props[iface] = props
        self.InterfacesAdded(dbus.ObjectPath(obj.path), {iface: props})

    def remove(self, path):
        obj = self.objects.pop(path, None)
        if obj is not None:
            self.InterfacesRemoved(dbus.ObjectPath(path), dbus.Array(list(obj.props.keys()), 's'))
            obj.remove_from_connection()


# ---------------------------------------------------------------- board role: the peripheral's bluetoothd

class BoardAdapter(PropertyObject):
    def __init__(self, bus, path, address):
        props = {ADAPTER: {'Address': dbus.String(address), 'Powered': dbus.Boolean(True),
                           'Pairable': dbus.Boolean(True), 'Discoverable': dbus.Boolean(True),
                           'PairableTimeout': dbus.UInt32(0)}}
        writable = [(ADAPTER, n) for n in ('Powered', 'Pairable', 'Discoverable', 'PairableTimeout')]
        super().__init__(bus, path, props, writable)
        self.bus = bus
        self.apps = {}
        self.advs = {}

    @dbus.service.method(GATT_MANAGER, in_signature='oa{sv}', sender_keyword='sender',
                         async_callbacks=('ok', 'err'))
    def RegisterApplication(self, app, options, sender=None, ok=None, err=None):
        key = (sender, str(app))
        if key in self.apps:
            err(BlueZError('AlreadyExists', 'Already Exists'))
            return
        proxy = self.bus.get_object(sender, app, introspect=False)

        def got(objects):
            problem, chrc_path = check_application(objects)
            if problem:
                out('rejected-application', problem)
                err(BlueZError('Failed', 'No valid service object found: ' + problem))
                return
            self.apps[key] = chrc_path
            out('registered-application', sender, app)
            ok()
            self.subscribe(sender, chrc_path)

        def failed(e):
            out('rejected-application', 'GetManagedObjects failed: %s' % e.get_dbus_name())
            err(BlueZError('Failed', 'GetManagedObjects failed'))

        proxy.GetManagedObjects(dbus_interface=OM, reply_handler=got, error_handler=failed, timeout=5)

    def subscribe(self, sender, chrc_path):
        def on_changed(iface, changed, invalidated):
            if iface == CHRC and 'Value' in changed:
                out('value', bytes(changed['Value']).hex())

        self.bus.add_signal_receiver(on_changed, signal_name='PropertiesChanged', dbus_interface=PROP,
                                     bus_name=sender, path=chrc_path)
        self.notified = (sender, chrc_path)
        self.set_notifying(True)

    def set_notifying(self, on):
        """StartNotify or StopNotify on the characteristic subscribed last, as a phone's CCCD write makes it."""
        if getattr(self, 'notified', None) is None:
            return
        chrc = self.bus.get_object(self.notified[0], self.notified[1], introspect=False)
        name = 'start-notify' if on else 'stop-notify'
        (chrc.StartNotify if on else chrc.StopNotify)(
            dbus_interface=CHRC, reply_handler=lambda: out(name + '-ok'),
            error_handler=lambda e: out(name + '-error', e.get_dbus_name()), timeout=5)

    @dbus.service.method(GATT_MANAGER, in_signature='o', sender_keyword='sender')
    def UnregisterApplication(self, app, sender=None):
        if self.apps.pop((sender, str(app)), None) is None:
            raise BlueZError('DoesNotExist', 'Does Not Exist')

    @dbus.service.method(ADV_MANAGER, in_signature='oa{sv}', sender_keyword='sender',
                         async_callbacks=('ok', 'err'))
    def RegisterAdvertisement(self, adv, options, sender=None, ok=None, err=None):
        key = (sender, str(adv))
        if key in self.advs:
            err(BlueZError('AlreadyExists', 'Already Exists'))
            return
        proxy = self.bus.get_object(sender, adv, introspect=False)

        def got(props):
            if props.get('Type') not in ('peripheral', 'broadcast'):
                err(BlueZError('InvalidArguments', 'Invalid Type'))
                return
            self.advs[key] = True
            parts = []
            for name in sorted(props):
                value = props[name]
                if name == 'ManufacturerData':
                    value = ','.join('%04x:%s' % (int(k), bytes(v).hex()) for k, v in value.items())
                elif name == 'ServiceUUIDs':
                    value = ','.join(str(u) for u in value)
                else:
                    value = value_text(value)
                parts.append('%s=%s' % (name, value))
            out('advertisement', ';'.join(parts))
            ok()

        proxy.GetAll(ADV, dbus_interface=PROP, reply_handler=got,
                     error_handler=lambda e: err(BlueZError('Failed', 'Failed to parse advertisement')), timeout=5)

    @dbus.service.method(ADV_MANAGER, in_signature='o', sender_keyword='sender')
    def UnregisterAdvertisement(self, adv, sender=None):
        if self.advs.pop((sender, str(adv)), None) is None:
            raise BlueZError('DoesNotExist', 'Does Not Exist')


def check_application(objects):
    """What bluetoothd checks when it parses a GATT application; returns (problem, characteristic path)."""
    services = {p: o[SERVICE] for p, o in objects.items() if SERVICE in o}
    chars = {p: o[CHRC] for p, o in objects.items() if CHRC in o}
    for path, svc in services.items():
        if str(svc.get('UUID', '')).lower() != WAKE_SERVICE or not svc.get('Primary'):
            return 'service %s: wrong UUID or not primary' % path, None
    for path, chrc in chars.items():
        if not isinstance(chrc.get('Service'), dbus.ObjectPath):
            return 'characteristic %s: Service is not an object path' % path, None
        if chrc['Service'] not in services:
            return 'characteristic %s: Service %s is not exported' % (path, chrc['Service']), None
        flags = [str(f) for f in chrc.get('Flags', [])]
        if 'notify' not in flags:
            return 'characteristic %s: no notify flag in %s' % (path, flags), None
        if str(chrc.get('UUID', '')).lower() != WAKE_CHAR:
            return 'characteristic %s: wrong UUID' % path, None
        value = chrc.get('Value')
        if value is not None and len(value) != 12:
            return 'characteristic %s: value of %d bytes' % (path, len(value)), None
        return None, path
    return 'no characteristic', None


class AgentManager(PropertyObject):
    def __init__(self, bus):
        super().__init__(bus, '/org/bluez', {AGENT_MANAGER: {}})

    @dbus.service.method(AGENT_MANAGER, in_signature='os')
    def RegisterAgent(self, agent, capability):
        out('agent', 'RegisterAgent', agent, capability)

    @dbus.service.method(AGENT_MANAGER, in_signature='o')
    def RequestDefaultAgent(self, agent):
        out('agent', 'RequestDefaultAgent', agent)

    @dbus.service.method(AGENT_MANAGER, in_signature='o')
    def UnregisterAgent(self, agent):
        out('agent', 'UnregisterAgent', agent)


# ---------------------------------------------------------------- phone role: the central's bluetoothd

class PhoneAdapter(PropertyObject):
    def __init__(self, bus, path, root, board_address, bond_lost):
        props = {ADAPTER: {'Address': dbus.String('00:BB:02:00:56:78'), 'Powered': dbus.Boolean(True)}}
        super().__init__(bus, path, props, [(ADAPTER, 'Powered')])
        self.root = root
        self.board_address = board_address
        self.bond_lost = bond_lost
        self.device = None

    @dbus.service.method(ADAPTER, in_signature='a{sv}')
    def SetDiscoveryFilter(self, filt):
        uuids = ','.join(str(u) for u in filt.get('UUIDs', []))
        out('call', 'SetDiscoveryFilter', 'UUIDs=' + uuids, 'Transport=' + str(filt.get('Transport', '')))

    @dbus.service.method(ADAPTER)
    def StartDiscovery(self):
        out('call', 'StartDiscovery')
        GLib.timeout_add(100, self.advertise)

    @dbus.service.method(ADAPTER)
    def StopDiscovery(self):
        out('call', 'StopDiscovery')

    def advertise(self):
        if self.device is None:
            self.device = Device(self.bus_conn(), self.path + '/dev_' + self.board_address.replace(':', '_'),
                                 self, self.board_address)
            self.root.add(self.device)
        else:
            self.device.update(DEVICE, {'RSSI': dbus.Int16(-48)})
        return False

    def bus_conn(self):
        return self.connection


class Device(PropertyObject):
    def __init__(self, bus, path, adapter, address):
        name = 'Aiden-' + address[-5:].replace(':', '')
        props = {DEVICE: {'Address': dbus.String(address), 'Name': dbus.String(name),
                          'UUIDs': dbus.Array([WAKE_SERVICE], 's'), 'RSSI': dbus.Int16(-50),
                          'Connected': dbus.Boolean(False), 'ServicesResolved': dbus.Boolean(False),
                          'Paired': dbus.Boolean(True), 'Trusted': dbus.Boolean(False),
                          'Adapter': dbus.ObjectPath(adapter.path)}}
        super().__init__(bus, path, props)
        self.adapter = adapter
        self.service = None
        self.chrc = None
        self.connections = 0

    @dbus.service.method(DEVICE, async_callbacks=('ok', 'err'))
    def Connect(self, ok=None, err=None):
        out('call', 'Connect', self.path)
        if self.adapter.bond_lost:
            err(BlueZError('AuthenticationFailed', 'Authentication Failed'))
            return
        if self.props[DEVICE]['Connected']:
            err(BlueZError('AlreadyConnected', 'Already Connected'))
            return
        self.connections += 1
        self.update(DEVICE, {'Connected': dbus.Boolean(True)})

        def resolve():
            root = self.adapter.root
            self.service = PropertyObject(self.connection, self.path + '/service000a', {SERVICE: {
                'UUID': dbus.String(WAKE_SERVICE), 'Primary': dbus.Boolean(True),
                'Device': dbus.ObjectPath(self.path)}})
            self.chrc = RemoteCharacteristic(self.connection, self.path + '/service000a/char000b', self.service.path)
            root.add(self.service)
            root.add(self.chrc)
            self.update(DEVICE, {'ServicesResolved': dbus.Boolean(True)})
            ok()
            return False

        GLib.timeout_add(50, resolve)

    @dbus.service.method(DEVICE)
    def Disconnect(self):
        out('call', 'Disconnect', self.path)
        self.drop()

    def drop(self):
        if self.chrc is not None:
            self.chrc.stop()
            self.adapter.root.remove(self.chrc.path)
            self.adapter.root.remove(self.service.path)
            self.chrc = self.service = None
        self.update(DEVICE, {'ServicesResolved': dbus.Boolean(False)})
        self.update(DEVICE, {'Connected': dbus.Boolean(False)})


class RemoteCharacteristic(PropertyObject):
    def __init__(self, bus, path, service_path):
        props = {CHRC: {'UUID': dbus.String(WAKE_CHAR), 'Service': dbus.ObjectPath(service_path),
                        'Flags': dbus.Array(['encrypt-read', 'notify'], 's'), 'Notifying': dbus.Boolean(False),
                        'Value': dbus.Array([], 'y')}}
        super().__init__(bus, path, props)
        self.sessions = 0
        self.seq = 100
        self.timer = None

    def value(self):
        return dbus.Array(struct.pack('<BBHQ', 1, 4, 0x1234, self.seq), 'y')

    @dbus.service.method(CHRC, in_signature='a{sv}', out_signature='ay')
    def ReadValue(self, options):
        out('call', 'ReadValue')
        return self.value()

    @dbus.service.method(CHRC)
    def StartNotify(self):
        out('call', 'StartNotify', self.path)
        if self.sessions:
            raise BlueZError('InProgress', 'In Progress')
        self.sessions += 1
        self.update(CHRC, {'Notifying': dbus.Boolean(True)})
        self.timer = GLib.timeout_add(100, self.tick)

    @dbus.service.method(CHRC)
    def StopNotify(self):
        out('call', 'StopNotify', self.path)
        self.stop()

    def tick(self):
        self.seq += 1
        self.notify(self.value())
        return True

    def notify(self, value):
        self.update(CHRC, {'Value': value})

    def stop(self):
        if self.timer is not None:
            GLib.source_remove(self.timer)
            self.timer = None
        self.sessions = 0


# ---------------------------------------------------------------- control and main

class Control(dbus.service.Object):
    def __init__(self, bus, adapter):
        self.adapter = adapter
        super().__init__(bus, '/org/aidenbridge/fake')

    @dbus.service.method(CONTROL, in_signature='b')
    def SetPowered(self, powered):
        out('control', 'SetPowered', value_text(powered))
        self.adapter.update(ADAPTER, {'Powered': dbus.Boolean(powered)})

    @dbus.service.method(CONTROL, in_signature='b')
    def SetNotifying(self, on):
        out('control', 'SetNotifying', value_text(on))
        if isinstance(self.adapter, BoardAdapter):
            self.adapter.set_notifying(bool(on))

    @dbus.service.method(CONTROL)
    def DropConnection(self):
        out('control', 'DropConnection')
        device = getattr(self.adapter, 'device', None)
        if device is not None:
            device.drop()

    @dbus.service.method(CONTROL, in_signature='ay')
    def Notify(self, value):
        device = getattr(self.adapter, 'device', None)
        if device is not None and device.chrc is not None:
            device.chrc.notify(dbus.Array(value, 'y'))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bus', required=True)
    ap.add_argument('--role', choices=['board', 'phone'], required=True)
    ap.add_argument('--adapter', default='hci0')
    ap.add_argument('--address', default='00:AA:01:00:12:34')
    ap.add_argument('--board-address', default='00:AA:01:00:12:34')
    ap.add_argument('--bond-lost', action='store_true')
    ap.add_argument('--known-device', choices=['paired-trusted', 'paired', 'unpaired'],
                    help='phone role: bluetoothd already knows the board (from an earlier pairing or scan)')
    args = ap.parse_args()

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(args.bus)
    root = Root(bus)
    path = '/org/bluez/' + args.adapter
    if args.role == 'board':
        root.add(AgentManager(bus), announce=False)
        adapter = BoardAdapter(bus, path, args.address)
        # Like bluetoothd: the adapter first, its managers a moment later (BlueZNames.peripheralAdapterInterfaces).
        gatt_props = dict(adapter.props)
        adapter.props = {ADAPTER: gatt_props[ADAPTER]}
        root.add(adapter, announce=False)

        def managers():
            root.add_interface(adapter, GATT_MANAGER, {})
            root.add_interface(adapter, ADV_MANAGER, {'ActiveInstances': dbus.Byte(0),
                                                      'SupportedInstances': dbus.Byte(5)})
            return False

        GLib.timeout_add(150, managers)
    else:
        adapter = PhoneAdapter(bus, path, root, args.board_address, args.bond_lost)
        root.add(adapter, announce=False)
        if args.known_device:
            adapter.device = Device(bus, path + '/dev_' + args.board_address.replace(':', '_'), adapter,
                                    args.board_address)
            adapter.device.props[DEVICE].pop('RSSI')
            adapter.device.props[DEVICE]['Paired'] = dbus.Boolean(args.known_device != 'unpaired')
            adapter.device.props[DEVICE]['Trusted'] = dbus.Boolean(args.known_device == 'paired-trusted')
            root.add(adapter.device, announce=False)
    Control(bus, adapter)
    _name = dbus.service.BusName('org.bluez', bus, do_not_queue=True)
    out('ready', bus.get_unique_name())
    GLib.MainLoop().run()


if __name__ == '__main__':
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
