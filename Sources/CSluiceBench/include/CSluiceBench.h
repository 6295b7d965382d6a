// Raw libcurl driven from C: the reference sluice-bench compares every Swift client with.
#ifndef SLUICE_CSLUICEBENCH_H
#define SLUICE_CSLUICEBENCH_H

#include <stddef.h>

/// Fetches `url` `count` times with `concurrency` transfers in flight (1: one easy handle reused,
/// sequential; more: one multi handle) and returns the seconds taken, or a negative number on a
/// failed transfer. `bytes` receives the body bytes read.
double sluice_bench_libcurl(const char *url, int count, int concurrency, size_t *bytes);

#endif
