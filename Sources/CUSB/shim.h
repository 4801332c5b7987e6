// libusb-1.0 for Swift: the header imports as is, so the shim only names it.
#pragma once
#include <libusb.h>
