"""A phone that is not BlueZ: Bumble (PyPI) plays the Aiden app on an iPhone against aiden-board.

Everywhere else in the scenario both ends of the radio are BlueZ. Here one process holds two Bumble
controllers on one LocalLink (Bumble's emulated radio between them):

- the board's controller, whose HCI is /dev/vhci: the guest's kernel gets a new controller (hciN),
  bluetoothd serves it, and aiden-board is configured to use it ([wake] adapter);
- the phone's controller, whose host is Bumble's own host stack in this process (its SMP, ATT and
  GATT client, its JSON keystore): nothing of BlueZ on this side.

The phone does what the app on an iPhone does (docs/protocol.md §2, §3.3):

1. asks the board over the USB cable for its Bluetooth address (GET /api/bluetooth/status; the lab
   starts this process before aiden-board uses the new controller, so it waits until the address the
   cable names is that controller's) and, with no keys for it in the keystore, opens the board's
   pairing window for its own address (POST /api/bluetooth/pairing/start, as aiden-phone does: only
   the cable's far end may);
2. scans for the Wake service from that address, connects, reads the Wake characteristic
   (encrypt-read): refused for lack of encryption, it pairs (Just Works, bonding, the keys stored in the
   keystore file) and reads it again; with keys already stored it encrypts with them instead, and never
   pairs again;
3. subscribes to the Wake (and to GATT's Service Changed), and after every new Wake (§2.5: another
   epoch or a higher sequence) fetches GET /api/live-activity/current?phone_id=ID over the cable;
4. on SIGUSR1 drops the link and reconnects (step 2 with the stored keys); a link the board drops is
   linked again the same way, and so is one whose encryption, discovery or subscription stalls for 15 s;
5. when the board's GATT application goes away and comes back under the same link (aiden-board
   restarted: bluetoothd indicates Service Changed), it finds the Wake characteristic again and
   resubscribes.

It writes one JSON object per line to LOG, each with "t" (wall-clock seconds) and "event":
  imported and started (with the seconds since the process began), waiting_for_board, board (the
  address the cable named), window (the pairing window's answer), scanning, found, connected,
  read_refused (ATT error), pairing_start, pairing, pairing_failure, security_request, encrypting, encrypted, read
  (len, hex), subscribed (link number), wake (len, hex, epoch, seq, new), fetch (status, request_id,
  phase, step, took), service_changed, wake_gone, dropping, disconnected (reason), error (what, text).
The scenario reads it (Tests/VM/guest/scenario.sh, phase "bumble"); every value notified is logged, of
any length, so a check can fail on a wrong one.

Usage: bumble_phone.py --log FILE --keystore FILE --board-url URL --phone-id UUID
                       [--address F0:AD:E1:00:00:01] [--board-controller-address 00:1B:DC:A1:DE:01]
"""
import time

STARTED = time.monotonic()  # before Bumble's modules, whose import under TCG takes a while

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import signal  # noqa: E402
import struct  # noqa: E402
import urllib.error  # noqa: E402
import urllib.request  # noqa: E402

from bumble import hci
from bumble.controller import Controller
from bumble.core import UUID, PhysicalTransport, ProtocolError
from bumble.device import Device, Peer
from bumble.host import Host
from bumble.keys import JsonKeyStore
from bumble.link import LocalLink
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.transport import open_transport

WAKE_SERVICE = UUID("a1de0001-7c4b-4f52-8d9a-6b4f6e6f7469")
WAKE_CHARACTERISTIC = UUID("a1de0002-7c4b-4f52-8d9a-6b4f6e6f7469")
GATT_SERVICE = UUID.from_16_bits(0x1801)
SERVICE_CHANGED = UUID.from_16_bits(0x2A05)
# A link step (encryption, discovery, the subscription) that takes longer is given up and the link made again:
# each takes well under a second on Bumble's emulated radio, even under TCG.
LINK_STEP_SECONDS = 15


class Radio(LocalLink):
    """Bumble's LocalLink, sending LE data from the address the link was made with.

    LocalLink sends a controller's LE ACL data from its random address; a peripheral that advertises
    with its public address, as bluetoothd makes the board's controller do, would then be unknown to
    the central, which drops all it sends ("no connection for ..."). The link's own address is the
    one the peer knows."""

    def send_acl_data(self, sender_controller, destination_address, transport, data):
        connection = sender_controller.le_connections.get(destination_address)
        receiver = self.find_le_controller(destination_address)
        if transport != PhysicalTransport.LE or connection is None or receiver is None:
            return super().send_acl_data(sender_controller, destination_address, transport, data)
        asyncio.get_running_loop().call_soon(
            receiver.on_link_acl_data, connection.self_address, transport, data)


class Log:
    def __init__(self, path):
        self.out = open(path, "a", buffering=1)

    def __call__(self, event, **fields):
        fields = {"t": round(time.time(), 3), "event": event, **fields}
        self.out.write(json.dumps(fields) + "\n")


def http(method, url, body=None, timeout=5):
    """One request over the USB link; (status, parsed JSON or None), status 0 when none came (the
    board restarting, the link down), with the reason as {"error": ...}."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            status, raw = answer.status, answer.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    except OSError as error:
        return 0, {"error": "%s: %s" % (type(error).__name__, error)}
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, None


class Phone:
    def __init__(self, args, device, log):
        self.args = args
        self.device = device
        self.log = log
        self.board = None            # the board's address, as the cable named it
        self.connection = None
        self.peer = None
        self.wake = None             # the Wake characteristic's proxy on this link
        self.links = 0
        self.last = None             # (epoch, sequence) of the last new Wake
        self.drop = asyncio.Event()
        self.resubscribe = asyncio.Event()
        self.fetching = None

    # ---------------------------------------------------------------- the cable
    async def ask_board(self):
        seen = None
        while True:
            status, body = await asyncio.to_thread(
                http, "GET", self.args.board_url + "/api/bluetooth/status")
            address = (body or {}).get("address") if status == 200 else None
            if address and address.upper() == self.args.board_controller_address.upper():
                self.board = address
                self.log("board", address=self.board)
                return
            # The lab starts this process (and so the board's controller) before the board moves to it.
            if (status, address) != seen:
                self.log("waiting_for_board", status=status, address=address)
                seen = (status, address)
            await asyncio.sleep(1)

    async def open_window(self):
        status, body = await asyncio.to_thread(
            http, "POST", self.args.board_url + "/api/bluetooth/pairing/start",
            {"seconds": 60, "phone_address": self.args.address})
        self.log("window", status=status, body=body)

    def on_wake(self, value):
        value = bytes(value)
        fields = {"len": len(value), "hex": value.hex()}
        if len(value) == 12:
            epoch, sequence = struct.unpack("<HQ", value[2:])
            new = self.last is None or epoch != self.last[0] or sequence > self.last[1]
            fields.update(epoch=epoch, seq=sequence, new=new)
            if new:
                self.last = (epoch, sequence)
                # Fetches run one at a time, in order; a Wake during a fetch is fetched after it.
                previous = self.fetching
                self.fetching = asyncio.ensure_future(self.fetch(previous))
        self.log("wake", **fields)

    async def fetch(self, previous):
        if previous is not None:
            await asyncio.gather(previous, return_exceptions=True)
        started = time.monotonic()
        url = "%s/api/live-activity/current?phone_id=%s" % (self.args.board_url, self.args.phone_id)
        status, body = await asyncio.to_thread(http, "GET", url)
        task = (body or {}).get("live_activity") or {}
        self.log("fetch", status=status, request_id=task.get("request_id"), phase=task.get("phase"),
                 step=task.get("current_step"), took=round(time.monotonic() - started, 3),
                 error=(body or {}).get("error") if status == 0 else None)

    # ---------------------------------------------------------------- the radio
    async def find_board(self):
        found = asyncio.get_running_loop().create_future()
        wanted = hci.Address(self.board, hci.Address.PUBLIC_DEVICE_ADDRESS)
        wake_bytes = bytes(WAKE_SERVICE.to_bytes())

        def on_advertisement(advertisement):
            if found.done():
                return
            if advertisement.address.to_string(False) != wanted.to_string(False):
                return
            if wake_bytes in advertisement.data_bytes:
                found.set_result(advertisement.address)

        self.device.on("advertisement", on_advertisement)
        self.log("scanning", board=self.board)
        await self.device.start_scanning(filter_duplicates=False)
        try:
            address = await asyncio.wait_for(found, 60)
        finally:
            self.device.remove_listener("advertisement", on_advertisement)
            await self.device.stop_scanning()
        self.log("found", address=str(address))
        return address

    async def has_keys(self):
        return await self.device.keystore.get(str(hci.Address(
            self.board, hci.Address.PUBLIC_DEVICE_ADDRESS))) is not None

    async def link(self):
        bonded = await self.has_keys()
        if not bonded:
            await self.open_window()
        address = await self.find_board()
        connection = await self.device.connect(address, timeout=30)
        self.connection = connection
        self.links += 1
        self.log("connected", link=self.links, handle=connection.handle, bonded=bonded)
        connection.on("disconnection", lambda reason: self.on_disconnection(connection, reason))
        connection.on("pairing_start", lambda: self.log("pairing_start"))
        connection.on("pairing", lambda keys: self.log("pairing", link=self.links))
        connection.on("pairing_failure", lambda reason: self.log("pairing_failure", reason=str(reason)))
        connection.on("security_request", lambda auth: self.log("security_request", auth_req=int(auth)))
        self.peer = Peer(connection)
        if bonded:
            # Keys stored: encrypt with them, as a bonded phone does, before touching the Wake.
            self.log("encrypting", link=self.links)
            await self.bounded("encrypting with the stored keys", connection.encrypt())
            self.log("encrypted", link=self.links)
        await self.bounded("subscribing", self.subscribe(first=True))

    async def bounded(self, what, step, seconds=LINK_STEP_SECONDS):
        """One step of linking, given up after SECONDS as an app gives up a link that stalls: the caller
        drops the link and links again, and the log says which step it was."""
        try:
            return await asyncio.wait_for(step, seconds)
        except asyncio.TimeoutError:
            raise TimeoutError("%s: no answer in %d s" % (what, seconds)) from None

    async def find_wake(self):
        services = await self.peer.discover_service(WAKE_SERVICE)
        for service in services:
            characteristics = await service.discover_characteristics()
            for characteristic in characteristics:
                if characteristic.uuid == WAKE_CHARACTERISTIC:
                    return characteristic
        return None

    async def subscribe(self, first):
        if first:
            # Service Changed first, so a board restart under this link is seen.
            for service in await self.peer.discover_service(GATT_SERVICE):
                for characteristic in await service.discover_characteristics():
                    if characteristic.uuid == SERVICE_CHANGED:
                        await self.peer.subscribe(characteristic, self.on_service_changed, prefer_notify=False)
        wake = await self.find_wake()
        if wake is None:
            self.log("wake_gone", link=self.links)
            return False
        try:
            value = await wake.read_value()
        except ProtocolError as error:
            # encrypt-read without encryption: the board asks for a bond, as on an iPhone.
            self.log("read_refused", error=str(getattr(error, "error_code", error)))
            await self.connection.pair()
            value = await wake.read_value()
        self.log("read", len=len(value), hex=bytes(value).hex())
        self.wake = wake
        await self.peer.subscribe(wake, self.on_wake)
        self.log("subscribed", link=self.links)
        return True

    def on_service_changed(self, value):
        self.log("service_changed", hex=bytes(value).hex())
        self.resubscribe.set()

    def on_disconnection(self, connection, reason):
        if connection is self.connection:
            self.log("disconnected", link=self.links, reason=str(reason))
            self.connection = None
            self.drop.set()

    async def run(self):
        await self.ask_board()
        while True:
            self.drop.clear()
            self.resubscribe.clear()
            try:
                await self.link()
            except Exception as error:  # a failed link is tried again, as the app does
                self.log("error", what="link", text="%s: %s" % (type(error).__name__, error))
                if self.connection is not None:
                    try:
                        await self.connection.disconnect()
                    except Exception:
                        pass
                    self.connection = None
                await asyncio.sleep(2)
                continue
            while self.connection is not None:
                dropped = asyncio.ensure_future(self.drop.wait())
                changed = asyncio.ensure_future(self.resubscribe.wait())
                await asyncio.wait([dropped, changed], return_when=asyncio.FIRST_COMPLETED)
                dropped.cancel()
                changed.cancel()
                if self.drop.is_set():
                    break
                # Service Changed: the board's application went away or came back. Let the indications
                # settle, then subscribe to the Wake characteristic it has now (none: wait for the next).
                await asyncio.sleep(1)
                self.resubscribe.clear()
                try:
                    await self.subscribe(first=False)
                except Exception as error:
                    self.log("error", what="resubscribe", text="%s: %s" % (type(error).__name__, error))
            await asyncio.sleep(1)

    def request_drop(self):
        connection = self.connection
        if connection is None:
            return
        self.log("dropping", link=self.links)
        asyncio.ensure_future(connection.disconnect())


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", required=True)
    parser.add_argument("--keystore", required=True)
    parser.add_argument("--board-url", required=True)
    parser.add_argument("--phone-id", required=True)
    parser.add_argument("--address", default="F0:AD:E1:00:00:01", help="the phone's static random address")
    parser.add_argument("--board-controller-address", default="00:1B:DC:A1:DE:01",
                        help="the public address of the controller the kernel gets")
    parser.add_argument("--vhci", default="vhci", help="Bumble transport for the board's controller")
    args = parser.parse_args()
    log = Log(args.log)

    log("imported", seconds=round(time.monotonic() - STARTED, 3))
    link = Radio()
    transport = await open_transport(args.vhci)
    # The board's controller: the kernel is its host, over /dev/vhci.
    Controller("board-side", host_source=transport.source, host_sink=transport.sink, link=link,
               public_address=args.board_controller_address)
    await run_phone(args, link, log)


async def run_phone(args, link, log):
    """The phone's controller on LINK, Bumble's own host stack on it, and the app's loop."""
    phone_controller = Controller("phone-side", link=link)
    host = Host()
    host.controller = phone_controller
    device = Device("bumble-phone", address=hci.Address(args.address), host=host)
    device.keystore = JsonKeyStore(namespace=args.address, filename=args.keystore)
    device.pairing_config_factory = lambda connection: PairingConfig(
        sc=True, mitm=False, bonding=True,
        delegate=PairingDelegate(io_capability=PairingDelegate.NO_OUTPUT_NO_INPUT))
    await device.power_on()
    log("started", address=args.address, board_controller=args.board_controller_address,
        seconds=round(time.monotonic() - STARTED, 3))

    phone = Phone(args, device, log)
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, phone.request_drop)
    await phone.run()

if __name__ == "__main__":
    asyncio.run(main())
