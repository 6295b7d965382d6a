// OpenSSL's libcrypto from Debian's libssl-dev: hashes and HMAC (SHA-256 for cache keys, signing).
#include <openssl/evp.h>
#include <openssl/hmac.h>
