// libusb-1.0 for Swift. libusb_set_option is variadic: wrap the forms we use.
#pragma once
#include <libusb.h>

static inline int aiden_libusb_set_log_level(libusb_context *ctx, int level) {
    return libusb_set_option(ctx, LIBUSB_OPTION_LOG_LEVEL, level);
}

static inline int aiden_libusb_no_device_discovery(libusb_context *ctx) {
    return libusb_set_option(ctx, LIBUSB_OPTION_NO_DEVICE_DISCOVERY);
}
