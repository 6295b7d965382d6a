#ifndef SLUICE_TSAN_H
#define SLUICE_TSAN_H

/* ThreadSanitizer's happens-before annotations, as no-ops unless the program links TSan's runtime
   (`swift build --sanitize=thread`). For hand-offs TSan cannot see: a continuation resumed on one
   thread and awaited on another synchronises through atomics inside the Swift runtime, which is
   not instrumented. */
void sluice_tsan_release(const void *token);
void sluice_tsan_acquire(const void *token);

#endif
