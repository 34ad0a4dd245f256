#!/usr/bin/env python3
"""Known-answer vectors for the device verifier a Cognito client registers with ConfirmDevice,
computed independently of the Swift code with Python's integers and standard library only.

    python3 device_vectors.py > device_vectors.json

With the group of srp_vectors.py (RFC 5054, 3072 bits, g = 2) and its pad():
  x         = H(pad(salt) | H(deviceGroupKey | deviceKey | ":" | password))
  verifier  = g^x mod N
  PasswordVerifier = base64(pad(verifier)), Salt = base64(pad(salt))

and the DEVICE_PASSWORD_VERIFIER claim of a DEVICE_SRP_AUTH sign-in, which is srp_vectors.py's
password claim with the device group key in place of the pool name and the device key in place of
the user (its "claims").
"""
import base64
import hashlib
import json

from srp_vectors import G, N, case as claim_case, h, pad, server_b

CASES = [
    ("plain", "-dG8yAxw1", "us-east-1_f3a2c7e1-5b0d-4e8a-9c6f-1d2e3f4a5b6c", "aGVsbG8gZGV2aWNlIHBhc3N3b3JkIG9mIGZvcnR5IGJ5dGVzISE=", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"),
    ("salt with the top bit set", "-Kq9Zr3mT", "eu-west-1_0f9e8d7c-6b5a-4938-2716-05f4e3d2c1b0", "c2Vjb25kIGRldmljZSBwYXNzd29yZCwgYWxzbyBmb3J0eSBieXRlcw==", "f0e1d2c3b4a5968778695a4b3c2d1e0f"),
]


def case(name, group_key, device_key, password, salt_hex):
    salt = int(salt_hex, 16)
    inner = hashlib.sha256((group_key + device_key + ":" + password).encode()).digest()
    x = h(pad(salt) + inner)
    verifier = pow(G, x, N)
    return {
        "name": name, "deviceGroupKey": group_key, "deviceKey": device_key, "password": password, "salt": salt_hex,
        "expected": {
            "x": format(x, "x"),
            "passwordVerifier": base64.b64encode(pad(verifier)).decode(),
            "salt": base64.b64encode(pad(salt)).decode(),
        },
    }


def claim(name, a_hex, salt_hex, b_hex, secret_block, group_key, device_key, password, timestamp):
    # The pool id's part after its first "_" is the name hashed: "device_" + the group key.
    vector = claim_case(name, a_hex, salt_hex, b_hex, secret_block, "device_" + group_key, device_key, password, timestamp)
    vector["deviceGroupKey"] = group_key
    vector["deviceKey"] = vector.pop("userIdForSrp")
    del vector["poolId"]
    return vector


CLAIMS = [
    claim("device claim", "c" * 256, "0a1b2c3d4e5f60718293a4b5c6d7e8f9", server_b("3d" * 128, 424242),
          base64.b64encode(bytes(range(48))).decode(), "-dG8yAxw1", "us-east-1_f3a2c7e1-5b0d-4e8a-9c6f-1d2e3f4a5b6c",
          "aGVsbG8gZGV2aWNlIHBhc3N3b3JkIG9mIGZvcnR5IGJ5dGVzISE=", "Tue Dec 1 15:30:00 UTC 2026"),
]

if __name__ == "__main__":
    print(json.dumps({"cases": [case(*c) for c in CASES], "claims": CLAIMS}, indent=2, sort_keys=True))
