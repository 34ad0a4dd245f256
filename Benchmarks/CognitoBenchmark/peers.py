"""The Cognito benchmark's Python peers, run in the same process tree as the Swift side:

    peers.py jwt WORK.json N    PyJWT verifying the same RS256 ID tokens (in turn) with the same JWK N times
    peers.py srp WORK.json N    pycognito computing SRP_A and the PASSWORD_VERIFIER answer N times

Prints one JSON line: {"seconds": CPU seconds (user + system) of the loop, "n": N}.
"""
import json
import resource
import sys
from unittest import mock


def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def verify_tokens(work, n):
    import jwt
    key = jwt.PyJWK(work["jwk"]).key
    tokens, issuer, audience = work["tokens"], work["issuer"], work["audience"]
    start = cpu()
    for index in range(n):
        claims = jwt.decode(tokens[index % len(tokens)], key=key, algorithms=["RS256"], audience=audience, issuer=issuer, leeway=60,
                            options={"require": ["exp", "iss", "aud", "sub"]})
        if claims.get("token_use") != "id":
            raise SystemExit("wrong token_use")
    return cpu() - start


def srp_sign_ins(work, n):
    from pycognito.aws_srp import AWSSRP
    challenge = work["challenge"]
    start = cpu()
    for _ in range(n):
        # The constructor draws a and computes A = g^a mod N, as a sign-in does.
        srp = AWSSRP(username=work["username"], password=work["password"], pool_id=work["poolId"],
                     client_id="benchmark", client=mock.Mock())
        srp.get_auth_params()
        srp.process_challenge(challenge, {"USERNAME": work["username"]})
    return cpu() - start


if __name__ == "__main__":
    mode, path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    work = json.load(open(path))
    seconds = verify_tokens(work, count) if mode == "jwt" else srp_sign_ins(work, count)
    print(json.dumps({"seconds": seconds, "n": count}))
