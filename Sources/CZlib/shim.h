// zlib from Debian's zlib1g-dev, for SluiceGzip.
#include <zlib.h>
