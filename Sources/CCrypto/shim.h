// OpenSSL's libcrypto from Debian's libssl-dev: hashes and HMAC (SHA-256 for cache keys, signing),
// AES-GCM and HKDF (payload encryption), and its random generator.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
