// libFuzzer's driver for Swift. `-sanitize=fuzzer` links libFuzzer (scripts/fuzz); nothing else does, and
// only a build with -DAIDEN_LIBFUZZER calls this. SwiftPM renames every executable's entry point and makes
// `main` an alias of it, so libFuzzer's own `main` cannot run: each harness's `@main` calls the driver.
#pragma once
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
