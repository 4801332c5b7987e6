#!/bin/bash
# gadget-guest.sh — `aiden-board gadget` against a real kernel's configfs, in a QEMU guest.
#
# It is the PID 1 of a throw-away guest like the one Tests/VM/run boots (Debian 12's 6.1 kernel over
# this machine's root filesystem, read-only, with a writable output directory mounted at /lab-out;
# the guest needs kmod, usbutils, iproute2 and curl), after `swift build` in the repository. Tests/VM/run
# boots its own scenario (Tests/VM/guest/scenario.sh), not this script: see docs/deployment.md,
# "Checked on a real kernel". As PID 1 it loads dummy_hcd, drives `aiden-board gadget up/down`
# through every case below, serves HTTP with aiden-board over the emulated ECM link between two
# network namespaces, writes RESULT and powers off. The expected MAC addresses are derived from the
# host's /etc/machine-id.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
O=/lab-out
BIN=${AIDEN_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/.build/debug}
G=/sys/kernel/config/usb_gadget
up() { cut -d' ' -f1 /proc/uptime; }
say() { echo "[guest $(up)s] $*" | tee -a "$O/guest.log"; }
RESULTS=()
result() { RESULTS+=("$1 $2 (t=$(up)s) ${3:-}"); say "RESULT $1 $2 ${3:-}"; }
check() { local name=$1; shift; if "$@" >> "$O/guest.log" 2>&1; then result "$name" PASS; else result "$name" FAIL; fi; }
wait_for() { local t=$1; shift; local end=$(( $(date +%s) + t ))
    until "$@" >/dev/null 2>&1; do [ "$(date +%s)" -ge "$end" ] && return 1; sleep 0.2; done; }
finish() {
    local overall=PASS
    for r in "${RESULTS[@]}"; do case "$r" in *" FAIL "*) overall=FAIL ;; esac; done
    { printf '%s\n' "${RESULTS[@]}"; echo "OVERALL $overall"; } > "$O/RESULT"
    dmesg > "$O/dmesg.txt"; sync; /bin/busybox poweroff -f
}
trap finish EXIT
mount -t tmpfs -o mode=0755 tmpfs /run; mkdir -p /run/lock /tmp; mount -t tmpfs tmpfs /tmp
ip link set lo up
say "kernel $(uname -r)"
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)

# 0. The project's udev rules, .link files and sysusers entry, with a real systemd-udevd (252),
#    if this machine has one: the interfaces must come out as aiden0 and aidenboard0.
UDEVD=/lib/systemd/systemd-udevd
if [ -x $UDEVD ]; then
    mkdir -p /etc/udev/rules.d /etc/systemd/network /etc/sysusers.d
    cp "$REPO"/udev/*.rules /etc/udev/rules.d/
    cp "$REPO"/systemd/network/*.link /etc/systemd/network/
    cp "$REPO"/systemd/sysusers.d/aiden.conf /etc/sysusers.d/
    systemd-sysusers >> "$O/guest.log" 2>&1 && getent group aiden > /dev/null \
        && result sysusers PASS "$(getent passwd aiden)" || result sysusers FAIL
    $UDEVD --daemon >> "$O/guest.log" 2>&1 && result udevd PASS || result udevd FAIL
fi

# 1. Without libcomposite: configfs may be mounted but has no usb_gadget.
mount -t configfs none /sys/kernel/config 2>/dev/null
out=$($BIN/aiden-board gadget up 2>&1); rc=$?
say "no libcomposite: rc=$rc $out"
[ $rc = 69 ] && [[ $out == *"configfs usb_gadget not found at /sys/kernel/config/usb_gadget"* ]] \
    && result no-configfs PASS || result no-configfs FAIL "rc=$rc"

for m in libcomposite usb_f_ecm cdc_ether; do modprobe $m || result "modprobe-$m" FAIL; done
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
# 2. libcomposite but no UDC yet.
out=$($BIN/aiden-board gadget up 2>&1); rc=$?
say "no UDC: rc=$rc $out"
[ $rc = 69 ] && [[ $out == *"no USB device controller"* ]] && result no-udc PASS || result no-udc FAIL "rc=$rc"
modprobe dummy_hcd || result modprobe-dummy_hcd FAIL
UDC=$(ls /sys/class/udc | head -n1); say "UDC=$UDC"

# 3. up: the gadget appears on the host side with our ids, strings and MAC addresses.
out=$($BIN/aiden-board gadget up 2>&1); rc=$?
say "up: rc=$rc $out"
[ $rc = 0 ] && [[ $out == *"bound to $UDC: interface "* ]] && result up PASS "$out" || result up FAIL "rc=$rc $out"
DEV_MAC=$(sed -n 's/.*board end \([0-9a-f:]*\),.*/\1/p' <<< "$out")
HOST_MAC=$(sed -n 's/.*host end \([0-9a-f:]*\)).*/\1/p' <<< "$out")
SERIAL=$(cat $G/aiden/strings/0x409/serialnumber)
find $G/aiden -maxdepth 4 \( -type f -o -type l \) -printf '%p ' > /dev/null
for f in idVendor idProduct bcdDevice bcdUSB UDC strings/0x409/manufacturer strings/0x409/product \
         strings/0x409/serialnumber configs/c.1/MaxPower configs/c.1/strings/0x409/configuration \
         functions/ecm.usb0/dev_addr functions/ecm.usb0/host_addr functions/ecm.usb0/ifname; do
    say "  $f = $(cat $G/aiden/$f)"
done
say "  link: $(readlink $G/aiden/configs/c.1/ecm.usb0)"
hostif() { for n in /sys/class/net/*; do
    [ "$(basename "$(readlink -f $n/device/driver 2>/dev/null)")" = cdc_ether ] && basename $n; done; }
have_hostif() { [ -n "$(hostif)" ]; }
wait_for 15 have_hostif || result host-side FAIL "no cdc_ether netdev"
if [ -x $UDEVD ]; then
    udevadm settle -t 20
    renamed() { [ -e /sys/class/net/aiden0 ] && [ -e /sys/class/net/aidenboard0 ]; }
    wait_for 20 renamed && result udev-names PASS "aiden0 and aidenboard0" \
        || result udev-names FAIL "$(ls /sys/class/net | tr '\n' ' ')"
    udevadm info /sys/class/net/aiden0 > "$O/udev-aiden0.txt" 2>&1
    udevadm info /sys/class/net/aidenboard0 > "$O/udev-aidenboard0.txt" 2>&1
    grep -q 'AIDEN_ECM=gadget' "$O/udev-aiden0.txt" && grep -q 'AIDEN_ECM=board' "$O/udev-aidenboard0.txt" \
        && result udev-properties PASS || result udev-properties FAIL
    for d in /sys/bus/usb/devices/*; do
        [ "$(cat $d/manufacturer 2>/dev/null)" = AidenBridge ] || continue
        node=$(printf '/dev/bus/usb/%03d/%03d' "$(cat $d/busnum)" "$(cat $d/devnum)")
    done
    perm=$(stat -c '%G %a' "$node" 2>&1)
    say "board USB node $node: $perm"
    # Nothing opens the node (libusb's hotplug reads sysfs): the rule leaves it to udev's defaults.
    [ -e "$node" ] && [ "${perm%% *}" != aiden ] && result udev-usb-node PASS "$node $perm (not granted)" \
        || result udev-usb-node FAIL "$perm"
fi
HIF=$(hostif); GIF=$(cat $G/aiden/functions/ecm.usb0/ifname)
lsusb > "$O/lsusb.txt" 2>&1; lsusb -v -d 1d6b:0104 >> "$O/lsusb.txt" 2>&1
say "host if $HIF mac $(cat /sys/class/net/$HIF/address); gadget if $GIF mac $(cat /sys/class/net/$GIF/address)"
[[ $DEV_MAC == 02:a1:de:* ]] && [ "$(cat /sys/class/net/$GIF/address)" = "$DEV_MAC" ] \
    && result gadget-mac PASS "$DEV_MAC" || result gadget-mac FAIL
[[ $HOST_MAC == 06:a1:de:* ]] && [ "$(cat /sys/class/net/$HIF/address)" = "$HOST_MAC" ] \
    && result host-mac PASS "$HOST_MAC" || result host-mac FAIL
grep -q 'ID 1d6b:0104' "$O/lsusb.txt" && grep -q 'iManufacturer.*AidenBridge' "$O/lsusb.txt" \
    && grep -q "iSerial.*$SERIAL" "$O/lsusb.txt" && [ ${#SERIAL} = 16 ] && result lsusb PASS || result lsusb FAIL
[ "$(cat /sys/class/net/$HIF/../../manufacturer 2>/dev/null)" = AidenBridge ] || \
    say "host if parent manufacturer: $(cat /sys/class/net/$HIF/device/../manufacturer 2>/dev/null)"

# 4. up again: nothing to do.
out=$($BIN/aiden-board gadget up 2>&1); rc=$?
say "up again: rc=$rc $out"
[ $rc = 0 ] && [[ $out == *"already bound to $UDC: nothing to do"* ]] && result up-twice PASS || result up-twice FAIL

# 5. HTTP over the link: aiden-board in netns board, curl from netns phone.
ip netns add board; ip netns add phone
ip -n board link set lo up; ip -n phone link set lo up
ip link set "$GIF" netns board && ip link set "$HIF" netns phone
ip -n board addr add 192.168.42.1/24 dev "$GIF"; ip -n phone addr add 192.168.42.2/24 dev "$HIF"
ip -n phone link set "$HIF" up; sleep 0.5; ip -n board link set "$GIF" up
carrier() { ip -n phone link show "$HIF" | grep -q 'state UP'; }
b=0; until wait_for 5 carrier; do [ $b -ge 3 ] && break; b=$((b+1)); ip -n board link set "$GIF" down; sleep 0.5; ip -n board link set "$GIF" up; done
mkdir -p /tmp/board
printf '[wake]\ntransport = "loopback"\n[agent]\nsocket = "/tmp/board/agent.sock"\n[state]\ndirectory = "/tmp/board/state"\n' > /tmp/board/board.toml
ip netns exec board $BIN/aiden-board --config /tmp/board/board.toml > "$O/board.log" 2>&1 &
BOARD=$!
wait_for 20 test -S /tmp/board/agent.sock
$BIN/aidenctl --socket /tmp/board/agent.sock task start --title "over USB" >> "$O/guest.log" 2>&1
got=$(ip netns exec phone curl -s -m 10 'http://192.168.42.1:8080/api/live-activity/current?phone_id=p1')
say "phone GET current: $got"
[[ $got == *'"task_title":"over USB"'* ]] && result http-over-ecm PASS "bounces=$b" || result http-over-ecm FAIL "$got"
st=$(ip netns exec board curl -s -m 5 http://127.0.0.1:8080/status 2>&1; ip netns exec board $BIN/aiden-board doctor --config /tmp/board/board.toml 2>&1)
say "doctor in netns board: $st"
kill $BOARD
if wait_for 15 sh -c "! kill -0 $BOARD"; then
    result board-sigterm PASS
else
    for t in /proc/$BOARD/task/*; do
        echo "$t $(cat $t/comm) $(cat $t/wchan) $(grep State $t/status)"; cat $t/stack 2>/dev/null
    done > "$O/board-stuck.txt" 2>&1
    result board-sigterm FAIL "still running 15 s after SIGTERM (board-stuck.txt)"
    kill -9 $BOARD
fi
ip -n board link set "$GIF" netns 1; ip -n phone link set "$HIF" netns 1

# 6. Another gadget holds the UDC: down ours, bind g2 by hand, up must say who holds it.
out=$($BIN/aiden-board gadget down 2>&1); rc=$?
say "down: rc=$rc $out"
[ $rc = 0 ] && [[ $out == *"unbound and removed"* ]] && [ ! -e $G/aiden ] && result down PASS || result down FAIL "rc=$rc"
wait_for 10 sh -c '! ls /sys/class/net | grep -qE "^(usb|aiden)"' && result down-netdev-gone PASS \
    || result down-netdev-gone FAIL
out=$($BIN/aiden-board gadget down 2>&1); rc=$?
[ $rc = 0 ] && [[ $out == *"nothing to do"* ]] && result down-twice PASS || result down-twice FAIL "rc=$rc $out"
(set -e; mkdir $G/g2; cd $G/g2; echo 0x1234 > idVendor; mkdir configs/c.1 functions/ecm.x
 ln -s functions/ecm.x configs/c.1/; echo "$UDC" > UDC) || result g2-setup FAIL
out=$($BIN/aiden-board gadget up 2>&1); rc=$?
say "up with g2 bound: rc=$rc $out"
[ $rc = 69 ] && [[ $out == *"gadget 'g2' is bound to it"* ]] && result busy PASS || result busy FAIL "rc=$rc"
out=$($BIN/aiden-board gadget up --udc nosuch.0 2>&1); rc=$?
say "up --udc nosuch.0: rc=$rc $out"
[ $rc = 69 ] && [[ $out == *"no USB device controller named nosuch.0"* ]] && result unknown-udc PASS || result unknown-udc FAIL
(cd $G/g2; echo "" > UDC; rm configs/c.1/ecm.x; rmdir configs/c.1 functions/ecm.x; cd ..; rmdir g2) || result g2-teardown FAIL

# 7. A half-made tree from a crash is completed; a new vendor id is applied by rebinding.
mkdir $G/aiden $G/aiden/strings/0x409; echo 0x9999 > $G/aiden/idVendor
out=$($BIN/aiden-board gadget up 2>&1); rc=$?
say "up over a partial tree: rc=$rc $out"
[ $rc = 0 ] && [ "$(cat $G/aiden/idVendor)" = 0x1d6b ] && result partial PASS || result partial FAIL "rc=$rc"
printf '[gadget]\nvendor_id = "0x1209"\nproduct_id = "0x0001"\n' > /tmp/g.toml
out=$($BIN/aiden-board gadget up --config /tmp/g.toml 2>&1); rc=$?
say "up with new ids: rc=$rc $out"
sleep 2; lsusb > "$O/lsusb2.txt" 2>&1
[ $rc = 0 ] && grep -q 'ID 1209:0001' "$O/lsusb2.txt" && result new-ids PASS || result new-ids FAIL "rc=$rc"
# 8. A new machine id: new addresses, written while the function is unlinked.
echo 0123456789abcdef0123456789abcdef > /etc/machine-id
out=$($BIN/aiden-board gadget up --config /tmp/g.toml 2>&1); rc=$?
say "up with a new machine id: rc=$rc $out"
[ $rc = 0 ] && [ "$(tr -d '\0' < $G/aiden/functions/ecm.usb0/dev_addr)" = 02:a1:de:a6:08:45 ] \
    && [ "$(cat $G/aiden/strings/0x409/serialnumber)" = 8FFA26AE04B1DBE4 ] && result new-machine-id PASS \
    || result new-machine-id FAIL "rc=$rc"
out=$($BIN/aiden-board gadget down 2>&1); rc=$?
[ $rc = 0 ] && [ ! -e $G/aiden ] && result final-down PASS || result final-down FAIL "rc=$rc $out"

# 9. A legacy gadget module holds the UDC.
if modprobe g_ether 2>> "$O/guest.log"; then
    out=$($BIN/aiden-board gadget up 2>&1); rc=$?
    say "up with g_ether loaded: rc=$rc $out"
    [ $rc = 69 ] && [[ $out == *"another gadget driver holds it"* ]] && result legacy-busy PASS || result legacy-busy FAIL "rc=$rc"
    $BIN/aiden-board gadget down >> "$O/guest.log" 2>&1
    modprobe -r g_ether
else
    say "no g_ether module: legacy-busy not tried"
fi
