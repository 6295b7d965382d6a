#ifndef SLUICE_CZLIB_SHIM_H
#define SLUICE_CZLIB_SHIM_H

#include <zlib.h>

// zlib's init functions are macros (they pass the version and struct size); these are callable.

/// deflateInit2 with DEFLATED, memLevel 8 and the default strategy. windowBits: 15+16 for gzip.
int sluice_deflate_init(z_stream *stream, int level, int windowBits);
/// inflateInit2. windowBits: 15+16 gzip, 15 zlib, -15 raw deflate, 15+32 gzip or zlib.
int sluice_inflate_init(z_stream *stream, int windowBits);

#endif
