#include "CSluiceTSan.h"

/* Weak: defined only when TSan's runtime is linked in (it is, whole, by -sanitize=thread). */
void __tsan_release(void *addr) __attribute__((weak));
void __tsan_acquire(void *addr) __attribute__((weak));

void sluice_tsan_release(const void *token) {
    if (__tsan_release) __tsan_release((void *)token);
}

void sluice_tsan_acquire(const void *token) {
    if (__tsan_acquire) __tsan_acquire((void *)token);
}
