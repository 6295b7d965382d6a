// Raw libcurl driven from C: the reference sluice-bench compares every Swift client with.
#ifndef SLUICE_CSLUICEBENCH_H
#define SLUICE_CSLUICEBENCH_H

#include <stddef.h>

/// Fetches `url` `count` times with `concurrency` transfers in flight (1: one easy handle reused,
/// sequential; more: one multi handle) and returns the seconds taken, or a negative number on a
/// failed transfer. `bytes` receives the body bytes read. With `keep`, every response's header
/// lines and body are kept in fresh buffers, as a client that returns responses must. `fields`
/// (`field_count` of them, `Name: value` lines in curl's CURLOPT_HTTPHEADER form) go on every
/// request, so C can send the very head a Sluice client sent. An https URL's server is trusted
/// when the CA file named by the environment's `SLUICE_BENCH_CA` signed it.
double sluice_bench_libcurl(const char *url, int count, int concurrency, int keep, size_t *bytes, const char *const *fields, int field_count);

/// zlib driven from C, the reference for SluiceGzip: gzip-compresses `input` (level 6, one member)
/// into `output` (capacity `capacity`) and returns the compressed size, or 0 on failure.
size_t sluice_bench_gzip(const unsigned char *input, size_t length, unsigned char *output, size_t capacity);

/// Inflates the gzip `input` into `output` and returns the decompressed size, or 0 on failure.
size_t sluice_bench_gunzip(const unsigned char *input, size_t length, unsigned char *output, size_t capacity);

#endif
