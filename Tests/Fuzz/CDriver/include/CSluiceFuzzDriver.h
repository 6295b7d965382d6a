#ifndef SLUICE_FUZZ_DRIVER_H
#define SLUICE_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// Hands the process to libFuzzer (LLVMFuzzerRunDriver) with `callback` as the target, and returns
/// its exit status. Returns -1 at once in a build without libFuzzer (one not made with
/// `make fuzz`, which defines SLUICE_FUZZ and links with -sanitize=fuzzer).
int sluice_fuzz_driver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
