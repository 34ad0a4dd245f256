#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/bn.h>
#include <openssl/rand.h>
#include <openssl/kdf.h>
#include <openssl/err.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/params.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>

/// EVP_PKEY_PUBLIC_KEY, a macro built from other macros that Swift cannot import.
static inline int c_openssl_public_key_selection(void) { return EVP_PKEY_PUBLIC_KEY; }
