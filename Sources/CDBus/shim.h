// libdbus-1 for Swift. DBUS_TYPE_* are char-cast macros that do not import: re-export them.
#pragma once
#include <dbus/dbus.h>

static const int AIDEN_DBUS_TYPE_INVALID = DBUS_TYPE_INVALID;
static const int AIDEN_DBUS_TYPE_BYTE = DBUS_TYPE_BYTE;
static const int AIDEN_DBUS_TYPE_BOOLEAN = DBUS_TYPE_BOOLEAN;
static const int AIDEN_DBUS_TYPE_INT16 = DBUS_TYPE_INT16;
static const int AIDEN_DBUS_TYPE_UINT16 = DBUS_TYPE_UINT16;
static const int AIDEN_DBUS_TYPE_INT32 = DBUS_TYPE_INT32;
static const int AIDEN_DBUS_TYPE_UINT32 = DBUS_TYPE_UINT32;
static const int AIDEN_DBUS_TYPE_INT64 = DBUS_TYPE_INT64;
static const int AIDEN_DBUS_TYPE_UINT64 = DBUS_TYPE_UINT64;
static const int AIDEN_DBUS_TYPE_DOUBLE = DBUS_TYPE_DOUBLE;
static const int AIDEN_DBUS_TYPE_STRING = DBUS_TYPE_STRING;
static const int AIDEN_DBUS_TYPE_OBJECT_PATH = DBUS_TYPE_OBJECT_PATH;
static const int AIDEN_DBUS_TYPE_SIGNATURE = DBUS_TYPE_SIGNATURE;
static const int AIDEN_DBUS_TYPE_UNIX_FD = DBUS_TYPE_UNIX_FD;
static const int AIDEN_DBUS_TYPE_ARRAY = DBUS_TYPE_ARRAY;
static const int AIDEN_DBUS_TYPE_VARIANT = DBUS_TYPE_VARIANT;
static const int AIDEN_DBUS_TYPE_STRUCT = DBUS_TYPE_STRUCT;
static const int AIDEN_DBUS_TYPE_DICT_ENTRY = DBUS_TYPE_DICT_ENTRY;

static inline void aiden_dbus_version(int *major, int *minor, int *micro) {
    dbus_get_version(major, minor, micro);
}

// A non-blocking, close-on-exec eventfd: the D-Bus thread's wakeup (no busy polling).
// `sys/eventfd.h` is not part of Swift's Glibc module, so it is reached through this shim.
#include <sys/eventfd.h>

static inline int aiden_dbus_wakeup_fd_create(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}
