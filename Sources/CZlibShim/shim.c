#include "CZlibShim.h"

int sluice_deflate_init(z_stream *stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}

int sluice_inflate_init(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
