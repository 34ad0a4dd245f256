"""Self-test of the hosted UI stand-in. Run it with the test-tools venv's python (PyJWT and
cryptography are there):

    .build/test-tools/venv/bin/python Sources/AmplifyTestKit/HostedUI/test_hosted_ui_server.py -v

Each test starts hosted_ui_server.py as a subprocess with --port 0, reads its READY line, drives it
over HTTP on 127.0.0.1 (redirects are never followed: each is checked), and stops it by its PID.
"""
import base64
import hashlib
import hmac
import http.client
import json
import os
import select
import signal
import subprocess
import sys
import time
import unittest
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "hosted_ui_server.py")
POOL = "eu-west-1_TestPool1"
ISSUER = f"https://cognito-idp.eu-west-1.amazonaws.com/{POOL}"
CLIENT, OTHER_CLIENT = "client0000000000000000one", "client0000000000000000two"
CALLBACK, OTHER_CALLBACK = "http://127.0.0.1:3000/callback", "http://localhost:4000/cb"
LOGOUT = "http://127.0.0.1:3000/signout"
SECRET = "s3cr3t-client-secret"
ADMIN_SCOPE = "aws.cognito.signin.user.admin"


def b64url(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def pkce():
    verifier = b64url(os.urandom(32))
    return verifier, b64url(hashlib.sha256(verifier.encode()).digest())


def basic(client, secret):
    return {"Authorization": "Basic " + base64.b64encode(f"{client}:{secret}".encode()).decode()}


class Page(HTMLParser):
    """The forms, inputs, links and ids of an HTML page."""

    def __init__(self, text):
        super().__init__()
        self.forms, self.inputs, self.links, self.ids, self.texts = [], [], [], {}, {}
        self.scripts = 0
        self._open_id = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append(attrs)
        elif tag == "input":
            self.inputs.append(attrs)
        elif tag == "a":
            self.links.append(attrs)
        elif tag == "script":
            self.scripts += 1
        if "id" in attrs:
            self.ids[attrs["id"]] = (tag, attrs)
            self._open_id = attrs["id"]

    def handle_data(self, data):
        if self._open_id:
            self.texts[self._open_id] = self.texts.get(self._open_id, "") + data

    def handle_endtag(self, tag):
        self._open_id = None

    def hidden(self):
        return {i["name"]: i.get("value", "") for i in self.inputs if i.get("type") == "hidden"}


class Server:
    """hosted_ui_server.py on a free port, stopped by its PID."""

    def __init__(self, *arguments):
        self.process = subprocess.Popen([sys.executable, SERVER, "--port", "0", *arguments], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ready, _, _ = select.select([self.process.stdout], [], [], 20)
        line = self.process.stdout.readline() if ready else ""
        if not line.startswith("READY "):
            self.stop()
            raise RuntimeError(f"hosted_ui_server.py did not start: {line!r} {self.process.stderr.read()}")
        self.port = int(line.split()[1])
        self.stderr = ""

    def stop(self):
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        if not self.process.stderr.closed:
            self.stderr = self.process.stderr.read()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            stream.close()
        return self.process.returncode


class Harness(unittest.TestCase):
    """Starts a server per test (arguments()) and stops it by its PID; helpers to drive it."""

    def arguments(self):
        return ["--pool-id", POOL, "--client-id", CLIENT, "--client-id", OTHER_CLIENT, "--callback-url", CALLBACK,
                "--callback-url", OTHER_CALLBACK, "--logout-url", LOGOUT, "--user", "alice:Passw0rd!:alice@example.com",
                "--user", "bob:pass:with:colons", "--group", "alice:admins", "--group", "alice:editors"]

    def setUp(self):
        self.server = Server(*self.arguments())
        self.port = self.server.port

    def tearDown(self):
        code = self.server.stop()
        self.assertEqual(code, 0, "SIGTERM ends the server cleanly")
        # Nothing is logged per request (and no traceback: every answer was a deliberate one).
        self.assertEqual(self.server.stderr, "")

    # --- helpers ---

    def request(self, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            if isinstance(body, dict):
                body = urlencode(body)
                headers = {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})}
            connection.request(method, path, body=body, headers=headers or {})
            answer = connection.getresponse()
            return answer.status, answer.headers, answer.read()
        finally:
            connection.close()

    def control(self, name, method="POST", body=None):
        status, _, raw = self.request(method, f"/control/{name}", body=body)
        self.assertEqual(status, 200, raw)
        return json.loads(raw)

    def state(self):
        return self.control("state", "GET")

    def authorize_query(self, challenge, **overrides):
        params = {"response_type": "code", "client_id": CLIENT, "redirect_uri": CALLBACK,
                  "scope": f"openid email {ADMIN_SCOPE}", "state": "st4te", "code_challenge": challenge,
                  "code_challenge_method": "S256", "nonce": "n0nce"}
        params.update(overrides)
        return urlencode({name: value for name, value in params.items() if value is not None})

    def authorize(self, challenge, **overrides):
        status, headers, raw = self.request("GET", "/oauth2/authorize?" + self.authorize_query(challenge, **overrides))
        return status, headers, raw.decode()

    def login(self, challenge, username="alice", password="Passw0rd!", **overrides):
        """GET the authorize page, fill its form, POST it: (status, headers, body)."""
        status, _, text = self.authorize(challenge, **overrides)
        self.assertEqual(status, 200, text)
        page = Page(text)
        form = {**page.hidden(), "username": username, "password": password}
        status, headers, raw = self.request("POST", page.forms[0]["action"], form)
        return status, headers, raw.decode()

    def redirect_query(self, headers, prefix=CALLBACK):
        location = headers["Location"]
        self.assertTrue(location.startswith(prefix + "?"), location)
        return {name: values[0] for name, values in parse_qs(urlsplit(location).query, keep_blank_values=True).items()}

    def sign_in(self, username="alice", password="Passw0rd!", **overrides):
        """A code and its verifier after a successful login."""
        verifier, challenge = pkce()
        status, headers, text = self.login(challenge, username, password, **overrides)
        self.assertEqual(status, 302, text)
        query = self.redirect_query(headers, overrides.get("redirect_uri", CALLBACK))
        return query["code"], verifier

    def token(self, form, headers=None):
        status, answer_headers, raw = self.request("POST", "/oauth2/token", form, headers)
        return status, (json.loads(raw) if raw else None), answer_headers

    def exchange(self, code, verifier, client=CLIENT, redirect_uri=CALLBACK, headers=None):
        return self.token({"grant_type": "authorization_code", "code": code, "client_id": client,
                           "redirect_uri": redirect_uri, "code_verifier": verifier}, headers)

    def tokens(self, **overrides):
        code, verifier = self.sign_in(**overrides)
        status, answer, _ = self.exchange(code, verifier)
        self.assertEqual(status, 200, answer)
        return answer

    def cognito(self, operation, body, content_type="application/x-amz-json-1.1"):
        status, headers, raw = self.request("POST", "/", json.dumps(body), {
            "Content-Type": content_type, "X-Amz-Target": f"AWSCognitoIdentityProviderService.{operation}"})
        return status, json.loads(raw), headers

    def verify(self, token, **options):
        status, _, raw = self.request("GET", f"/{POOL}/.well-known/jwks.json")
        self.assertEqual(status, 200)
        key_set = jwt.PyJWKSet.from_dict(json.loads(raw))
        kid = jwt.get_unverified_header(token)["kid"]
        key = next(key for key in key_set.keys if key.key_id == kid)
        return jwt.decode(token, key.key, algorithms=["RS256"], issuer=ISSUER, **options)


class HostedUIServerTest(Harness):

    def test_authorize_page_has_the_sign_in_form(self):
        _, challenge = pkce()
        status, headers, text = self.authorize(challenge)
        self.assertEqual(status, 200)
        self.assertTrue(headers["Content-Type"].startswith("text/html"))
        page = Page(text)
        self.assertEqual(page.scripts, 0, "no JavaScript")
        self.assertEqual(len(page.forms), 1)
        self.assertEqual(page.forms[0]["method"], "post")
        self.assertEqual(page.forms[0]["action"], "/login")
        self.assertEqual(page.ids["username"][1]["name"], "username")
        self.assertEqual(page.ids["password"][1]["name"], "password")
        self.assertEqual(page.ids["password"][1]["type"], "password")
        self.assertEqual(page.ids["signInSubmitButton"][1]["type"], "submit")
        self.assertEqual(page.hidden(), {
            "response_type": "code", "client_id": CLIENT, "redirect_uri": CALLBACK,
            "scope": f"openid email {ADMIN_SCOPE}", "state": "st4te", "code_challenge": challenge,
            "code_challenge_method": "S256", "nonce": "n0nce"})
        signup = next(link["href"] for link in page.links if link.get("id") == "signUpLink")
        self.assertTrue(signup.startswith("/signup?"))
        self.assertEqual(parse_qs(urlsplit(signup).query)["code_challenge"], [challenge])
        self.assertNotIn("loginErrorMessage", page.ids)

    def test_bad_authorize_requests_answer_400_without_redirect(self):
        _, challenge = pkce()
        cases = {
            "redirect_mismatch": {"redirect_uri": "http://127.0.0.1:9999/evil"},
            "redirect_uri is missing": {"redirect_uri": None},
            "invalid client_id": {"client_id": "nobody"},
            "code_challenge_method": {"code_challenge_method": None},
            "plain method": {"code_challenge_method": "plain"},
            "no challenge": {"code_challenge": None},
            "short challenge": {"code_challenge": "abc"},
            "response_type": {"response_type": "token"},
        }
        for name, overrides in cases.items():
            with self.subTest(name):
                status, headers, text = self.authorize(challenge, **overrides)
                self.assertEqual(status, 400, text)
                self.assertNotIn("Location", headers)
                self.assertTrue(headers["Content-Type"].startswith("text/html"))
                self.assertIn("error", text.lower())
        status, headers, _ = self.request("GET", "/oauth2/authorize?" + self.authorize_query(challenge) + "&state=again")
        self.assertEqual(status, 400, "a repeated parameter")
        self.assertNotIn("Location", headers)
        # A tampered hidden redirect_uri is refused at /login too.
        form = {**Page(self.authorize(challenge)[2]).hidden(), "redirect_uri": "http://evil.example/",
                "username": "alice", "password": "Passw0rd!"}
        status, headers, _ = self.request("POST", "/login", form)
        self.assertEqual(status, 400)
        self.assertNotIn("Location", headers)
        counts = self.state()["counts"]
        self.assertEqual(counts["authorizeErrors"], len(cases) + 1)
        self.assertEqual(counts["codesIssued"], 0)

    def test_login_with_wrong_then_right_password(self):
        verifier, challenge = pkce()
        status, headers, text = self.login(challenge, password="wrong")
        self.assertEqual(status, 200)
        self.assertNotIn("Location", headers)
        page = Page(text)
        self.assertIn("Incorrect username or password", page.texts["loginErrorMessage"])
        self.assertIn("signInSubmitButton", page.ids)
        self.assertEqual(page.hidden()["code_challenge"], challenge)
        status, _, text = self.login(challenge, username="nobody")
        self.assertIn("loginErrorMessage", Page(text).ids)
        status, headers, _ = self.login(challenge)
        self.assertEqual(status, 302)
        query = self.redirect_query(headers)
        self.assertEqual(query["state"], "st4te")
        self.assertEqual(set(query), {"code", "state"})
        # Without a state, none comes back.
        status, headers, _ = self.login(challenge, state=None)
        self.assertEqual(set(self.redirect_query(headers)), {"code"})
        counts = self.state()["counts"]
        self.assertEqual((counts["failedLogins"], counts["logins"], counts["codesIssued"]), (2, 2, 2))

    def test_code_exchange_gives_verifiable_cognito_shaped_tokens(self):
        code, verifier = self.sign_in()
        status, answer, headers = self.exchange(code, verifier)
        self.assertEqual(status, 200, answer)
        self.assertEqual(headers["Cache-Control"], "no-store")
        self.assertEqual(set(answer), {"id_token", "access_token", "refresh_token", "expires_in", "token_type"})
        self.assertEqual((answer["token_type"], answer["expires_in"]), ("Bearer", 3600))
        self.assertEqual(answer["refresh_token"].count("."), 0, "the refresh token is opaque")
        self.assertGreaterEqual(len(answer["refresh_token"]), 50)
        access = self.verify(answer["access_token"])
        identity = self.verify(answer["id_token"], audience=CLIENT)
        header = jwt.get_unverified_header(answer["access_token"])
        self.assertEqual(set(header), {"alg", "kid"})
        self.assertEqual(access["token_use"], "access")
        self.assertEqual(access["client_id"], CLIENT)
        self.assertEqual(access["username"], "alice")
        self.assertEqual(access["scope"], f"openid email {ADMIN_SCOPE}")
        self.assertEqual(access["cognito:groups"], ["admins", "editors"])
        self.assertNotIn("aud", access)
        for claim in ("sub", "origin_jti", "event_id", "auth_time", "exp", "iat", "jti"):
            self.assertIn(claim, access)
        self.assertEqual(identity["token_use"], "id")
        self.assertEqual(identity["aud"], CLIENT)
        self.assertEqual(identity["cognito:username"], "alice")
        self.assertEqual(identity["email"], "alice@example.com")
        self.assertIs(identity["email_verified"], True)
        self.assertEqual(identity["nonce"], "n0nce")
        self.assertEqual(identity["cognito:groups"], ["admins", "editors"])
        self.assertEqual(identity["sub"], access["sub"])
        self.assertEqual(identity["origin_jti"], access["origin_jti"])
        self.assertNotEqual(identity["jti"], access["jti"])
        self.assertEqual(identity["at_hash"], b64url(hashlib.sha256(answer["access_token"].encode()).digest()[:16]))
        self.assertLessEqual(abs(access["exp"] - time.time() - 3600), 5)
        # The JWKS is also at the root, and the issuer's discovery document names it.
        status, _, raw = self.request("GET", "/.well-known/jwks.json")
        keys = json.loads(raw)["keys"]
        self.assertEqual(status, 200)
        self.assertEqual({(k["kty"], k["alg"], k["use"]) for k in keys}, {("RSA", "RS256", "sig")})
        self.assertEqual(keys[0]["kid"], header["kid"])
        status, _, raw = self.request("GET", "/.well-known/openid-configuration")
        configuration = json.loads(raw)
        self.assertEqual(configuration["issuer"], ISSUER)
        self.assertTrue(configuration["jwks_uri"].endswith(f"/{POOL}/.well-known/jwks.json"))
        self.assertEqual(self.request("GET", "/us-east-1_Other/.well-known/jwks.json")[0], 404)
        # Bob's password has colons in it and he has no email.
        bob = self.tokens(username="bob", password="pass:with:colons")
        self.assertNotIn("email", self.verify(bob["id_token"], audience=CLIENT))
        self.assertNotIn("cognito:groups", self.verify(bob["access_token"]))

    def test_no_scope_grants_the_defaults_and_no_openid_gives_no_id_token(self):
        answer = self.tokens(scope=None, nonce=None)
        self.assertEqual(set(self.verify(answer["access_token"])["scope"].split()),
                         {"openid", "email", "phone", "profile", ADMIN_SCOPE})
        self.assertNotIn("nonce", self.verify(answer["id_token"], audience=CLIENT))
        answer = self.tokens(scope="email")
        self.assertNotIn("id_token", answer)

    def test_a_code_is_single_use(self):
        code, verifier = self.sign_in()
        first = self.exchange(code, verifier)
        self.assertEqual(first[0], 200)
        status, answer, _ = self.exchange(code, verifier)
        self.assertEqual((status, answer), (400, {"error": "invalid_grant"}))
        # As at Cognito, the replay revokes nothing: the first refresh token still works.
        status, _, _ = self.token({"grant_type": "refresh_token", "refresh_token": first[1]["refresh_token"],
                                   "client_id": CLIENT})
        self.assertEqual(status, 200)
        self.assertEqual(self.state()["revokedOriginJtis"], [])
        status, answer, _ = self.exchange("no-such-code", verifier)
        self.assertEqual((status, answer), (400, {"error": "invalid_grant"}))

    def test_a_wrong_verifier_client_or_redirect_uri_is_refused(self):
        code, _ = self.sign_in()
        other_verifier, _ = pkce()
        status, answer, _ = self.exchange(code, other_verifier)
        self.assertEqual(status, 400)
        self.assertEqual(answer["error"], "invalid_grant")
        self.assertIn("PKCE", answer["error_description"])
        code, verifier = self.sign_in()
        status, answer, _ = self.exchange(code, verifier, client=OTHER_CLIENT)
        self.assertEqual((status, answer), (400, {"error": "invalid_grant"}))
        code, verifier = self.sign_in()
        status, answer, _ = self.exchange(code, verifier, redirect_uri=OTHER_CALLBACK)
        self.assertEqual((status, answer), (400, {"error": "invalid_grant"}))
        code, verifier = self.sign_in()
        status, answer, _ = self.exchange(code, "")
        self.assertEqual(status, 400)
        status, answer, _ = self.exchange(code, verifier, client="unknown-client")
        self.assertEqual((status, answer), (401, {"error": "invalid_client"}))
        # JSON is not the token endpoint's encoding.
        status, _, raw = self.request("POST", "/oauth2/token", json.dumps({"grant_type": "authorization_code"}),
                                      {"Content-Type": "application/json"})
        self.assertEqual((status, json.loads(raw)["error"]), (400, "invalid_request"))
        status, answer, _ = self.token({"grant_type": "password", "client_id": CLIENT})
        self.assertEqual((status, answer), (400, {"error": "unsupported_grant_type"}))
        counts = self.state()["counts"]
        self.assertEqual((counts["codesExchanged"], counts["codesRefused"]), (0, 4))

    def test_refresh_grant_works_until_revoked(self):
        answer = self.tokens()
        refresh = {"grant_type": "refresh_token", "refresh_token": answer["refresh_token"], "client_id": CLIENT}
        status, refreshed, _ = self.token(refresh)
        self.assertEqual(status, 200, refreshed)
        self.assertEqual(set(refreshed), {"id_token", "access_token", "expires_in", "token_type"})
        access = self.verify(refreshed["access_token"])
        identity = self.verify(refreshed["id_token"], audience=CLIENT)
        original = self.verify(answer["access_token"])
        self.assertEqual(access["origin_jti"], original["origin_jti"])
        self.assertEqual(access["auth_time"], original["auth_time"])
        self.assertNotIn("nonce", identity)
        status, failed, _ = self.token({**refresh, "client_id": OTHER_CLIENT})
        self.assertEqual((status, failed), (400, {"error": "invalid_grant"}))
        status, _, raw = self.request("POST", "/oauth2/revoke", {"token": answer["refresh_token"], "client_id": CLIENT})
        self.assertEqual((status, raw), (200, b""))
        status, failed, _ = self.token(refresh)
        self.assertEqual((status, failed), (400, {"error": "invalid_grant"}))
        # Revoking again, or an unknown token, is fine (RFC 7009); an access token is not revocable.
        self.assertEqual(self.request("POST", "/oauth2/revoke", {"token": answer["refresh_token"], "client_id": CLIENT})[0], 200)
        self.assertEqual(self.request("POST", "/oauth2/revoke", {"token": "unknown", "client_id": CLIENT})[0], 200)
        status, _, raw = self.request("POST", "/oauth2/revoke", {"token": answer["access_token"], "client_id": CLIENT})
        self.assertEqual((status, json.loads(raw)["error"]), (400, "unsupported_token_type"))
        status, _, raw = self.request("POST", "/oauth2/revoke", {"token": "x", "client_id": "nobody"})
        self.assertEqual((status, json.loads(raw)), (401, {"error": "invalid_client"}))
        state = self.state()
        self.assertEqual(state["revokedOriginJtis"], [original["origin_jti"]])
        self.assertEqual((state["counts"]["refreshes"], state["counts"]["revocations"]), (1, 1))
        # The revoked session's access tokens are refused by GetUser (their signatures still verify).
        status, error, _ = self.cognito("GetUser", {"AccessToken": refreshed["access_token"]})
        self.assertEqual((status, error["__type"]), (400, "NotAuthorizedException"))
        self.assertIn("revoked", error["message"])

    def test_revoke_token_and_initiate_auth_over_json(self):
        answer = self.tokens()
        refresh = {"AuthFlow": "REFRESH_TOKEN_AUTH", "ClientId": CLIENT,
                   "AuthParameters": {"REFRESH_TOKEN": answer["refresh_token"]}}
        status, result, headers = self.cognito("InitiateAuth", refresh)
        self.assertEqual(status, 200, result)
        self.assertTrue(headers["Content-Type"].startswith("application/x-amz-json-1.1"))
        tokens = result["AuthenticationResult"]
        self.assertEqual(set(tokens), {"AccessToken", "IdToken", "ExpiresIn", "TokenType"})
        self.assertEqual(tokens["TokenType"], "Bearer")
        self.assertEqual(self.verify(tokens["AccessToken"])["origin_jti"], self.verify(answer["access_token"])["origin_jti"])
        self.assertEqual(self.verify(tokens["IdToken"], audience=CLIENT)["cognito:username"], "alice")
        status, result, _ = self.cognito("InitiateAuth", {**refresh, "AuthFlow": "REFRESH_TOKEN"})
        self.assertEqual(status, 200, result)
        status, error, headers = self.cognito("InitiateAuth", {**refresh, "ClientId": OTHER_CLIENT})
        self.assertEqual((status, error["__type"], error["message"]), (400, "NotAuthorizedException", "Invalid Refresh Token"))
        self.assertEqual(headers["x-amzn-ErrorType"], "NotAuthorizedException")
        status, error, _ = self.cognito("InitiateAuth", {**refresh, "AuthFlow": "USER_PASSWORD_AUTH"})
        self.assertEqual(error["__type"], "InvalidParameterException")
        status, error, _ = self.cognito("InitiateAuth", {**refresh, "ClientId": "nobody"})
        self.assertEqual(error["__type"], "ResourceNotFoundException")
        status, error, _ = self.cognito("RevokeToken", {"Token": answer["access_token"], "ClientId": CLIENT})
        self.assertEqual(error["__type"], "UnsupportedTokenTypeException")
        status, result, _ = self.cognito("RevokeToken", {"Token": answer["refresh_token"], "ClientId": CLIENT})
        self.assertEqual((status, result), (200, {}))
        status, error, _ = self.cognito("InitiateAuth", refresh)
        self.assertEqual((status, error), (400, {"__type": "NotAuthorizedException", "message": "Refresh Token has been revoked"}))
        status, failed, _ = self.token({"grant_type": "refresh_token", "refresh_token": answer["refresh_token"], "client_id": CLIENT})
        self.assertEqual((status, failed), (400, {"error": "invalid_grant"}))
        status, error, _ = self.cognito("SignUp", {"ClientId": CLIENT})
        self.assertEqual((status, error["__type"]), (400, "InvalidParameterException"))
        counts = self.state()["counts"]
        self.assertEqual((counts["refreshes"], counts["revocations"]), (2, 1))

    def test_get_user_and_global_sign_out(self):
        answer = self.tokens()
        second = self.tokens()
        status, user, _ = self.cognito("GetUser", {"AccessToken": answer["access_token"]})
        self.assertEqual(status, 200, user)
        self.assertEqual(user["Username"], "alice")
        attributes = {a["Name"]: a["Value"] for a in user["UserAttributes"]}
        self.assertEqual(attributes["sub"], self.verify(answer["access_token"])["sub"])
        self.assertEqual(attributes["email"], "alice@example.com")
        for token in ("garbage", answer["id_token"], answer["access_token"][:-4] + "AAAA"):
            status, error, _ = self.cognito("GetUser", {"AccessToken": token})
            self.assertEqual((status, error["__type"]), (400, "NotAuthorizedException"))
        # A token without aws.cognito.signin.user.admin cannot call GetUser (as at Cognito).
        narrow = self.tokens(scope="openid email")
        status, error, _ = self.cognito("GetUser", {"AccessToken": narrow["access_token"]})
        self.assertEqual((status, error["message"]), (400, "Access Token does not have required scopes"))
        status, _, raw = self.request("GET", "/oauth2/userInfo", headers={"Authorization": "Bearer " + narrow["access_token"]})
        self.assertEqual((status, json.loads(raw)["username"]), (200, "alice"))
        # GlobalSignOut ends every session of the user.
        status, result, _ = self.cognito("GlobalSignOut", {"AccessToken": answer["access_token"]})
        self.assertEqual((status, result), (200, {}))
        for tokens in (answer, second, narrow):
            status, error, _ = self.cognito("InitiateAuth", {"AuthFlow": "REFRESH_TOKEN_AUTH", "ClientId": CLIENT,
                                                             "AuthParameters": {"REFRESH_TOKEN": tokens["refresh_token"]}})
            self.assertEqual((status, error["message"]), (400, "Refresh Token has been revoked"))
        status, error, _ = self.cognito("GetUser", {"AccessToken": second["access_token"]})
        self.assertEqual(error["message"], "Access Token has been revoked")
        state = self.state()
        self.assertEqual(len(state["revokedOriginJtis"]), 3)
        self.assertEqual(state["counts"]["globalSignOuts"], 1)
        # Bob's sessions are untouched.
        bob = self.tokens(username="bob", password="pass:with:colons")
        self.assertEqual(self.cognito("GetUser", {"AccessToken": bob["access_token"]})[1]["Username"], "bob")

    def test_logout_to_an_allowed_and_a_refused_uri(self):
        status, headers, _ = self.request("GET", "/logout?" + urlencode({"client_id": CLIENT, "logout_uri": LOGOUT}))
        self.assertEqual((status, headers["Location"]), (302, LOGOUT))
        for query in ({"client_id": CLIENT, "logout_uri": "http://evil.example/"}, {"client_id": "nobody", "logout_uri": LOGOUT},
                      {"client_id": CLIENT}):
            status, headers, _ = self.request("GET", "/logout?" + urlencode(query))
            self.assertEqual(status, 400)
            self.assertNotIn("Location", headers)
        state = self.state()
        self.assertEqual(state["logouts"], [{"clientId": CLIENT, "logoutUri": LOGOUT}])
        self.assertEqual((state["counts"]["logouts"], state["counts"]["refusedLogouts"]), (1, 3))

    def test_identity_provider_signs_in_a_federated_user(self):
        verifier, challenge = pkce()
        status, headers, _ = self.authorize(challenge, identity_provider="Google")
        self.assertEqual(status, 302)
        query = self.redirect_query(headers)
        self.assertEqual(query["state"], "st4te")
        status, answer, _ = self.exchange(query["code"], verifier)
        self.assertEqual(status, 200, answer)
        identity = self.verify(answer["id_token"], audience=CLIENT)
        username = identity["cognito:username"]
        self.assertRegex(username, r"^Google_\d{12}$")
        self.assertIn(f"{POOL}_Google", identity["cognito:groups"])
        self.assertEqual(identity["identities"][0]["providerName"], "Google")
        self.assertEqual(self.verify(answer["access_token"])["username"], username)
        # The same provider gives the same user; another provider another one.
        verifier, challenge = pkce()
        _, headers, _ = self.authorize(challenge, identity_provider="Google")
        again = self.exchange(self.redirect_query(headers)["code"], verifier)[1]
        self.assertEqual(self.verify(again["access_token"])["username"], username)
        _, headers, _ = self.authorize(challenge, identity_provider="MyCorpSAML")
        self.assertEqual(headers.get("Location", "").startswith(CALLBACK + "?code="), True)
        # identity_provider=COGNITO shows the form; a bad request is refused before any federation.
        self.assertEqual(self.authorize(challenge, identity_provider="COGNITO")[0], 200)
        self.assertEqual(self.authorize(challenge, identity_provider="Google", redirect_uri="http://x/")[0], 400)
        state = self.state()
        self.assertEqual(state["providers"], ["Google", "Google", "MyCorpSAML"])
        self.assertEqual(state["federatedUsers"]["Google"], username)
        self.assertEqual(state["counts"]["federatedSignIns"], 3)
        self.assertEqual(state["lastAuthorize"]["identity_provider"], "Google")

    def test_deny_and_forge_state_modes(self):
        _, challenge = pkce()
        self.control("mode?name=deny")
        status, headers, _ = self.login(challenge)
        self.assertEqual(status, 302)
        query = self.redirect_query(headers)
        self.assertEqual((query["error"], query["state"]), ("access_denied", "st4te"))
        self.assertIn("error_description", query)
        self.assertNotIn("code", query)
        self.control("mode?name=forge-state")
        _, headers, _ = self.login(challenge)
        query = self.redirect_query(headers)
        self.assertIn("code", query)
        self.assertNotEqual(query["state"], "st4te")
        self.assertEqual(self.state()["mode"], "forge-state")
        self.control("mode?name=normal")
        _, headers, _ = self.login(challenge)
        self.assertEqual(self.redirect_query(headers)["state"], "st4te")
        self.assertEqual(self.request("POST", "/control/mode?name=bogus")[0], 400)
        self.control("mode?name=deny")
        self.control("reset")
        self.assertEqual(self.state()["mode"], "normal")

    def test_signup_creates_a_user_and_signs_in(self):
        verifier, challenge = pkce()
        page = Page(self.authorize(challenge)[2])
        href = next(link["href"] for link in page.links if link.get("id") == "signUpLink")
        status, _, raw = self.request("GET", href)
        self.assertEqual(status, 200)
        signup = Page(raw.decode())
        self.assertEqual(signup.forms[0]["action"], "/signup")
        self.assertEqual({name for name in ("username", "email", "password") if name in signup.ids}, {"username", "email", "password"})
        form = {**signup.hidden(), "username": "alice", "email": "a@example.com", "password": "x"}
        status, _, raw = self.request("POST", "/signup", form)
        self.assertIn("signupErrorMessage", Page(raw.decode()).ids)
        form["username"] = "dave"
        status, headers, _ = self.request("POST", "/signup", form)
        self.assertEqual(status, 302)
        answer = self.exchange(self.redirect_query(headers)["code"], verifier)[1]
        self.assertEqual(self.verify(answer["id_token"], audience=CLIENT)["email"], "a@example.com")
        self.assertIn("dave", self.state()["users"])
        self.tokens(username="dave", password="x")

    def test_control_state_counts_users_and_reset(self):
        _, challenge = pkce()
        self.authorize(challenge)
        self.login(challenge, password="bad")
        answer = self.tokens()
        self.token({"grant_type": "refresh_token", "refresh_token": answer["refresh_token"], "client_id": CLIENT})
        self.request("POST", "/oauth2/revoke", {"token": answer["refresh_token"], "client_id": CLIENT})
        self.request("GET", "/logout?" + urlencode({"client_id": CLIENT, "logout_uri": LOGOUT}))
        state = self.state()
        expected = {"authorizeRequests": 3, "authorizePages": 3, "failedLogins": 1, "logins": 1, "codesIssued": 1,
                    "codesExchanged": 1, "refreshes": 1, "revocations": 1, "logouts": 1}
        self.assertEqual({name: state["counts"][name] for name in expected}, expected)
        self.assertEqual(state["lastAuthorize"]["client_id"], CLIENT)
        self.assertEqual(state["sessions"], 1)
        status, _, raw = self.request("POST", "/control/users", json.dumps({"username": "erin", "password": "pw1", "email": "e@example.com"}),
                                      {"Content-Type": "application/json"})
        self.assertEqual(status, 200)
        self.assertEqual(len(json.loads(raw)["sub"]), 36)
        self.assertEqual(self.request("POST", "/control/users", json.dumps({"username": "erin", "password": "x"}))[0], 409)
        self.control("reset")
        state = self.state()
        self.assertEqual(set(state["counts"].values()), {0})
        self.assertEqual((state["lastAuthorize"], state["revokedOriginJtis"], state["sessions"]), (None, [], 0))
        self.assertIn("erin", state["users"])
        self.tokens(username="erin", password="pw1")
        self.assertEqual(self.request("GET", "/health")[2], b"ok")

    def test_exit_with_stdin(self):
        server = Server("--exit-with-stdin")
        server.process.stdin.close()
        self.assertEqual(server.process.wait(10), 0)
        server.stop()


class ClientSecretTest(Harness):
    """A server with a client secret: the token and revoke endpoints need Basic auth."""

    def arguments(self):
        return ["--pool-id", POOL, "--client-id", CLIENT, "--callback-url", CALLBACK,
                "--user", "alice:Passw0rd!:alice@example.com", "--client-secret", SECRET,
                "--access-token-seconds", "60", "--id-token-seconds", "120"]

    def test_client_secret_requires_basic_auth(self):
        code, verifier = self.sign_in()
        status, answer, headers = self.exchange(code, verifier)
        self.assertEqual((status, answer), (401, {"error": "invalid_client"}))
        self.assertIn("WWW-Authenticate", headers)
        code, verifier = self.sign_in()
        status, answer, _ = self.exchange(code, verifier, headers=basic(CLIENT, "wrong"))
        self.assertEqual((status, answer), (401, {"error": "invalid_client"}))
        code, verifier = self.sign_in()
        status, answer, _ = self.exchange(code, verifier, headers=basic(CLIENT, SECRET))
        self.assertEqual(status, 200, answer)
        access = self.verify(answer["access_token"])
        self.assertEqual(answer["expires_in"], 60)
        self.assertLessEqual(abs(access["exp"] - access["iat"] - 60), 1)
        identity = self.verify(answer["id_token"], audience=CLIENT)
        self.assertEqual(identity["exp"] - identity["iat"], 120)
        refresh = {"grant_type": "refresh_token", "refresh_token": answer["refresh_token"], "client_id": CLIENT}
        self.assertEqual(self.token(refresh)[0], 401)
        self.assertEqual(self.token(refresh, basic(CLIENT, SECRET))[0], 200)
        # The body's client_id must name the authenticated client.
        self.assertEqual(self.token({**refresh, "client_id": "someone-else"}, basic(CLIENT, SECRET))[0], 401)
        # JSON 1.1: SECRET_HASH for refreshes (of the username or the sub), ClientSecret for RevokeToken.
        sub = access["sub"]
        flow = {"AuthFlow": "REFRESH_TOKEN_AUTH", "ClientId": CLIENT, "AuthParameters": {"REFRESH_TOKEN": answer["refresh_token"]}}
        status, error, _ = self.cognito("InitiateAuth", flow)
        self.assertEqual((status, error["__type"]), (400, "NotAuthorizedException"))
        for name in ("alice", sub):
            secret_hash = base64.b64encode(hmac.new(SECRET.encode(), (name + CLIENT).encode(), hashlib.sha256).digest()).decode()
            status, result, _ = self.cognito("InitiateAuth", {**flow, "AuthParameters": {**flow["AuthParameters"], "SECRET_HASH": secret_hash}})
            self.assertEqual(status, 200, result)
        status, error, _ = self.cognito("RevokeToken", {"Token": answer["refresh_token"], "ClientId": CLIENT})
        self.assertEqual((status, error["__type"]), (400, "NotAuthorizedException"))
        status, _, raw = self.request("POST", "/oauth2/revoke", {"token": answer["refresh_token"], "client_id": CLIENT})
        self.assertEqual((status, json.loads(raw)), (401, {"error": "invalid_client"}))
        self.assertEqual(self.state()["revokedOriginJtis"], [])
        status, _, raw = self.request("POST", "/oauth2/revoke", {"token": answer["refresh_token"]}, basic(CLIENT, SECRET))
        self.assertEqual((status, raw), (200, b""))
        self.assertEqual(self.token(refresh, basic(CLIENT, SECRET))[1], {"error": "invalid_grant"})
        second = self.exchange(*self.sign_in(), headers=basic(CLIENT, SECRET))[1]
        status, result, _ = self.cognito("RevokeToken", {"Token": second["refresh_token"], "ClientId": CLIENT, "ClientSecret": SECRET})
        self.assertEqual((status, result), (200, {}))
        self.assertEqual(len(self.state()["revokedOriginJtis"]), 2)


class VerboseTest(Harness):
    """--verbose logs method and path, never a token, a code, a password or a verifier."""

    def arguments(self):
        return super().arguments() + ["--verbose"]

    def tearDown(self):
        self.assertEqual(self.server.stop(), 0)

    def test_verbose_log_holds_no_secret(self):
        code, verifier = self.sign_in()
        status, answer, _ = self.exchange(code, verifier)
        self.assertEqual(status, 200, answer)
        self.token({"grant_type": "refresh_token", "refresh_token": answer["refresh_token"], "client_id": CLIENT})
        self.cognito("GetUser", {"AccessToken": answer["access_token"]})
        self.request("POST", "/oauth2/revoke", {"token": answer["refresh_token"], "client_id": CLIENT})
        self.server.stop()
        log = self.server.stderr
        self.assertIn("POST /oauth2/token", log)
        self.assertIn("GET /oauth2/authorize", log)
        for secret in (answer["access_token"], answer["id_token"], answer["refresh_token"], code, verifier, "Passw0rd!",
                       "st4te", "n0nce"):
            self.assertNotIn(secret, log)


if __name__ == "__main__":
    unittest.main()
