// libbluetooth (BlueZ, GPL-2.0-or-later) for Swift. Its headers are not self-contained:
// sys/socket.h must come first.
#pragma once
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>

/// HCIGETDEVINFO via ioctl (a function-like macro in C).
static inline int aiden_hci_devinfo(int dev_id, struct hci_dev_info *di) {
    return hci_devinfo(dev_id, di);
}

static inline int aiden_hci_test_bit(int nr, const void *addr) {
    return hci_test_bit(nr, addr);
}
