#!/usr/bin/env python3
"""Known-answer vectors for Cognito's USER_SRP_AUTH password claim, computed independently of
the Swift code with Python's integers and standard library only.

    python3 srp_vectors.py > srp_vectors.json

Each case fixes the client's private value a, the server's salt, B and SECRET_BLOCK, the pool,
the user and the timestamp, and records every intermediate (A, k, u, x, S, the HKDF key) and the
PASSWORD_CLAIM_SIGNATURE. The Swift tests compare their computation with this file and check that
this script still reproduces it.

The maths (RFC 5054 group of 3072 bits, g = 2, as Cognito uses it):
  pad(n)  = n's big-endian bytes, with a leading 0x00 when the top bit is set ("00" for zero)
  k       = H(pad(N) | pad(g))
  A       = g^a mod N
  u       = H(pad(A) | pad(B))
  x       = H(pad(salt) | H(poolName | userIdForSrp | ":" | password))
  S       = (B - k * g^x) ^ (a + u * x) mod N
  key     = HKDF-SHA256(ikm = pad(S), salt = pad(u), info = "Caldera Derived Key")[0:16]
  claim   = base64(HMAC-SHA256(key, poolName | userIdForSrp | base64decode(SECRET_BLOCK) | timestamp))
where poolName is the part of the pool id after the underscore.
"""
import base64
import hashlib
import hmac
import json

N = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
    "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510"
    "15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7"
    "ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C"
    "BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF", 16)
G = 2


def pad(n):
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""
    if not raw or raw[0] & 0x80:
        raw = b"\x00" + raw
    return raw


def h(data):
    return int.from_bytes(hashlib.sha256(data).digest(), "big")


def hkdf(ikm, salt):
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    return hmac.new(prk, b"Caldera Derived Key" + b"\x01", hashlib.sha256).digest()[:16]


def case(name, a_hex, salt_hex, b_hex, secret_block, pool_id, user_id, password, timestamp):
    a = int(a_hex, 16)
    salt = int(salt_hex, 16)
    B = int(b_hex, 16)
    k = h(pad(N) + pad(G))
    A = pow(G, a, N)
    u = h(pad(A) + pad(B))
    pool_name = pool_id.split("_", 1)[1]
    inner = hashlib.sha256((pool_name + user_id + ":" + password).encode()).digest()
    x = h(pad(salt) + inner)
    S = pow((B - k * pow(G, x, N)) % N, a + u * x, N)
    key = hkdf(pad(S), pad(u))
    # Python's default base64 decoding drops characters outside the alphabet (moto's SECRET_BLOCK
    # is a UUID with dashes), as the client must.
    block = base64.b64decode(secret_block)
    message = pool_name.encode() + user_id.encode() + block + timestamp.encode()
    claim = base64.b64encode(hmac.new(key, message, hashlib.sha256).digest()).decode()
    return {
        "name": name, "a": a_hex, "salt": salt_hex, "B": b_hex, "secretBlock": secret_block,
        "poolId": pool_id, "userIdForSrp": user_id, "password": password, "timestamp": timestamp,
        "expected": {"A": format(A, "x"), "k": format(k, "x"), "u": format(u, "x"), "x": format(x, "x"),
                     "S": format(S, "x"), "key": key.hex(), "claim": claim},
    }


def server_b(b_hex, verifier_x):
    """A B as a real server makes it: k*v + g^b mod N, for a verifier v = g^x."""
    k = h(pad(N) + pad(G))
    return format((k * pow(G, verifier_x, N) + pow(G, int(b_hex, 16), N)) % N, "x")


CASES = [
    case("realistic server values", "a" * 256, "3f1c5e2a9b7d4e6f8a0b1c2d3e4f5a6b",
         server_b("5c" * 128, 12345), base64.b64encode(bytes(range(64))).decode(),
         "us-east-1_AbCdEfGhI", "alice", "Secr3t!pass", "Mon Nov 30 20:00:00 UTC 2026"),
    case("salt and B with the top bit set, single-digit day", "0123456789abcdef" * 16, "f0e1d2c3b4a5968778695a4b3c2d1e0f",
         server_b("ff" * 96, 987654321), base64.b64encode(b"secret block \xff\x00\x80").decode(),
         "eu-west-1_Zz9", "9f1b2c3d-0000-4000-8000-00000000beef", "p\u00e4ssw\u00f6rd \u2713", "Tue Dec 1 09:05:07 UTC 2026"),
    case("salt with leading zero byte", "7" * 255, "00a1b2c3d4e5f60718293a4b5c6d7e8f",
         server_b("1", 42), "AAAA", "us-west-2_x", "bob", "hunter2", "Sat Jan 1 00:00:00 UTC 2000"),
    case("moto's short B and UUID secret block", "b" * 256, "066c23bf71da40a0909888e400d43688",
         "5310f2c3458a456d800947e4431561cb", "cfab7547-c26f-4f12-adeb-29dc65e30fe8",
         "us-east-1_3b98386624cc4effa202dd86e421e677", "47b95839-da54-454c-beb4-418ec7397d3a",
         "Passw0rd!x", "Mon Nov 30 20:01:02 UTC 2026"),
]

if __name__ == "__main__":
    print(json.dumps({"group": "RFC 5054 3072-bit, g = 2", "cases": CASES}, indent=2, ensure_ascii=False))
