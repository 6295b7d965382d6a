// The brotli decoder from Debian's libbrotli-dev (the library libcurl links), for SluiceGzip.
#include <brotli/decode.h>
