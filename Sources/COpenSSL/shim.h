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
#include <openssl/param_build.h>
#include <openssl/rsa.h>

/// An RSA public key from big-endian modulus and exponent bytes (NULL on failure). Built in C
/// because OSSL_PARAM_BLD keeps its parameter names by pointer, which must outlive the build.
static inline EVP_PKEY *c_openssl_rsa_public_key(const unsigned char *n, int n_length, const unsigned char *e, int e_length) {
    EVP_PKEY *pkey = NULL;
    BIGNUM *modulus = BN_bin2bn(n, n_length, NULL);
    BIGNUM *exponent = BN_bin2bn(e, e_length, NULL);
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    OSSL_PARAM *parameters = NULL;
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    if (modulus && exponent && builder && context
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus) == 1
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent) == 1
        && (parameters = OSSL_PARAM_BLD_to_param(builder)) != NULL
        && EVP_PKEY_fromdata_init(context) == 1) {
        if (EVP_PKEY_fromdata(context, &pkey, EVP_PKEY_PUBLIC_KEY, parameters) != 1) pkey = NULL;
    }
    EVP_PKEY_CTX_free(context);
    OSSL_PARAM_free(parameters);
    OSSL_PARAM_BLD_free(builder);
    BN_free(modulus);
    BN_free(exponent);
    return pkey;
}
