#include "CSluiceFuzzDriver.h"

#ifdef SLUICE_FUZZ
// libFuzzer's entry point for programs with their own main (clang's libclang_rt.fuzzer).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
#endif

int sluice_fuzz_driver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size)) {
#ifdef SLUICE_FUZZ
    return LLVMFuzzerRunDriver(argc, argv, callback);
#else
    (void)argc;
    (void)argv;
    (void)callback;
    return -1;
#endif
}
