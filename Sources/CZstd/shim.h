// Zstandard from Debian's libzstd-dev (the library libcurl links), for SluiceGzip.
#include <zstd.h>
#include <zstd_errors.h>
