"""The tests' stand-in for Amazon Cognito's hosted UI (managed login): the OAuth 2.0 / OpenID
Connect endpoints of a user pool domain, the pool's JWKS, and the few Cognito Identity Provider
JSON 1.1 calls a signed-in session makes (refresh, GetUser, revoke, global sign-out), on one port
of 127.0.0.1 (a threaded HTTP/1.1 server, the standard library plus PyJWT and cryptography). It
prints "READY <port>" once listening and serves until SIGTERM (or, with --exit-with-stdin, until
standard input closes). Nothing is logged per request (--verbose logs method and path, never a
query, a body, a token, a code, a password or a verifier).

  hosted_ui_server.py --port P [--host 127.0.0.1]
      [--pool-id us-east-1_HostedUI] [--region R]          region: the pool id's prefix by default
      [--client-id ID ...]                                  app clients (default hostedui000test000client01)
      [--client-secret SECRET]                              every client's secret: /oauth2/token and
                                                            /oauth2/revoke then need HTTP Basic client auth
      [--callback-url URL ...]                              allowed redirect_uri (default http://127.0.0.1:3000/callback)
      [--logout-url URL ...]                                allowed logout_uri (default http://127.0.0.1:3000/signout)
      [--user username:password[:email] ...]                confirmed users, each with a random UUID sub
      [--group username:group ...]                          cognito:groups
      [--access-token-seconds 3600] [--id-token-seconds 3600]
      [--exit-with-stdin] [--verbose]

Tokens: RS256 JWTs signed by an RSA-2048 key made at start (random kid), iss
https://cognito-idp.<region>.amazonaws.com/<pool-id>.
  access: sub, iss, client_id, origin_jti, event_id, token_use "access", scope (granted, space
          separated), auth_time, exp, iat, jti, username, version 2, cognito:groups (when any)
  id:     sub, aud (client id), email + email_verified (when known), cognito:username, token_use
          "id", auth_time, exp, iat, iss, jti, origin_jti, event_id, at_hash, nonce (when the
          authorize request had one; not on refreshed tokens), cognito:groups (when any),
          identities (federated users); only when the openid scope was granted
  refresh: opaque (40 random bytes, base64url); never expires; bound to its client. A sign-in is a
          session named by its origin_jti: revoking the refresh token revokes every access and ID
          token issued from it (GetUser refuses them; their signatures stay valid, as at Cognito).
Federated users (identity_provider=X) are named X_<12 digits> (one per provider per run), carry the
group <pool-id>_X and the identities claim.

Hosted UI:
  GET  /oauth2/authorize?response_type=code&client_id&redirect_uri&scope&state&code_challenge
       &code_challenge_method=S256[&nonce][&identity_provider]
       checks, in order: client_id known, redirect_uri one of --callback-url exactly, response_type
       code, code_challenge_method S256, code_challenge 43-128 chars of [A-Za-z0-9-._~], scopes
       well-formed, no repeated parameter. Any problem: 400 text/html naming it (never a redirect).
       Otherwise 200 text/html, no JavaScript: <form method="post" action="/login"> with inputs
       username, password (ids the same), the authorize parameters as hidden inputs, a submit
       button id signInSubmitButton, and <a id="signUpLink" href="/signup?<same query>">.
       No scope: openid email phone profile aws.cognito.signin.user.admin. identity_provider=X
       (Google, Facebook, LoginWithAmazon, SignInWithApple, any OIDC/SAML name; not COGNITO)
       signs the federated user in at once (as a successful login). No session cookie is kept:
       every authorize shows the form. GET /login takes the same query and shows the same page.
  POST /login  form: the hidden parameters (checked again), username, password.
       Wrong credentials: 200, the form again with <p id="loginErrorMessage">. Right: a one-time
       code (5 minutes) bound to client_id, redirect_uri, code_challenge, scope, nonce and the user,
       and 302 Location: <redirect_uri>?code=<code>[&state=<state>]. Mode deny: 302 to
       <redirect_uri>?error=access_denied&error_description=...[&state=]; mode forge-state: a code
       and a state that is not the request's.
  GET  /signup?<authorize query>  a form (username, email, password; id signUpButton) posting to /signup
  POST /signup  creates the user (confirmed) and signs in as POST /login does; a taken username or an
       empty field: 200, the form again with <p id="signupErrorMessage">.
  POST /oauth2/token  application/x-www-form-urlencoded only (else 400 invalid_request).
       Client auth: with --client-secret, Authorization: Basic base64(client_id:secret) is
       required (a body client_id must name the same client); else client_id in the body. Bad or
       missing: 401 {"error":"invalid_client"}.
       grant_type=authorization_code, code, client_id, redirect_uri, code_verifier: the code is
       spent by its first presentation; unknown, spent or expired, another client_id or
       redirect_uri: 400 {"error":"invalid_grant"} (a second use revokes nothing, as at Cognito);
       base64url(SHA-256(verifier)) != challenge: 400 {"error":"invalid_grant",
       "error_description":"PKCE verification failed"}. 200 {"id_token","access_token",
       "refresh_token","expires_in","token_type":"Bearer"} (no id_token without openid).
       grant_type=refresh_token, refresh_token, client_id: 200 {"id_token","access_token",
       "expires_in","token_type"} (no new refresh token); unknown, revoked or another client's
       token: 400 {"error":"invalid_grant"}.
       Another grant_type: 400 {"error":"unsupported_grant_type"}; none: 400 invalid_request.
  POST /oauth2/revoke  form token, client_id, client auth as above: revokes the refresh token's
       session. 200 with an empty body, also for an unknown token (RFC 7009); an access or ID
       token: 400 {"error":"unsupported_token_type"}; another client's token: 400
       {"error":"invalid_request"}; no token: 400 invalid_request; bad client: 401 invalid_client.
  GET  /oauth2/userInfo (or POST)  Authorization: Bearer <access token with openid>:
       {"sub","username","email","email_verified"}; else 401 {"error":"invalid_token"}.
  GET  /logout?client_id&logout_uri  known client and logout_uri one of --logout-url: 302 to it
       (recorded); else 400 text/html.
  GET  /<pool-id>/.well-known/jwks.json, /.well-known/jwks.json: {"keys":[{kty RSA, kid, n, e,
       alg RS256, use sig}]}. GET /.well-known/openid-configuration (also under /<pool-id>/).
Cognito Identity Provider (POST / with X-Amz-Target: AWSCognitoIdentityProviderService.<Op> and
Content-Type: application/x-amz-json-1.1; SigV4 is not checked; errors are 400
{"__type","message"} with x-amzn-ErrorType):
  RevokeToken {Token, ClientId[, ClientSecret]} -> {}: as /oauth2/revoke (unknown token: {});
       wrong or missing ClientSecret with --client-secret: NotAuthorizedException; an access
       token: UnsupportedTokenTypeException; another client's token: UnauthorizedException.
  InitiateAuth {AuthFlow: REFRESH_TOKEN_AUTH | REFRESH_TOKEN, ClientId, AuthParameters:
       {REFRESH_TOKEN[, SECRET_HASH]}} -> {"ChallengeParameters":{}, "AuthenticationResult":
       {"AccessToken","IdToken","ExpiresIn","TokenType":"Bearer"}}; revoked: NotAuthorizedException
       "Refresh Token has been revoked"; unknown or another client's: "Invalid Refresh Token"; with
       --client-secret, SECRET_HASH = base64(HMAC-SHA256(secret, username-or-sub + ClientId)) is
       required. Other flows: InvalidParameterException.
  GetUser {AccessToken} -> {"Username","UserAttributes":[{"Name":"sub",...},{"Name":"email",...},
       {"Name":"email_verified",...}]}; the token must carry the aws.cognito.signin.user.admin
       scope (as Cognito requires of hosted-UI tokens); expired, revoked, unknown or forged:
       NotAuthorizedException.
  GlobalSignOut {AccessToken} -> {}: revokes every session of the user (same token checks).
  Unknown operations: 400 InvalidParameterException. Unknown ClientId: ResourceNotFoundException.
Control (no auth):
  GET  /health                    200 "ok"
  GET  /control/state             {"counts": {authorizeRequests, authorizeErrors, authorizePages,
                                  logins, failedLogins, signups, federatedSignIns, codesIssued,
                                  codesExchanged, codesRefused, refreshes, revocations,
                                  globalSignOuts, logouts, refusedLogouts}, "lastAuthorize": {the
                                  last authorize query} | null, "providers": [each identity_provider
                                  used, in order], "federatedUsers": {provider: username},
                                  "revokedOriginJtis": [...], "logouts": [{"clientId","logoutUri"}],
                                  "mode", "users": [names], "sessions": number}
  POST /control/reset             clears codes, sessions (refresh tokens) and their revocations,
                                  the mode, counts and records; keeps the users and the key
  POST /control/mode?name=deny|forge-state|normal
  POST /control/users             {"username","password","email"?,"groups"?: [...]}: adds a user ->
                                  {"username","sub"}; 409 when it exists
"""
import argparse
import base64
import hashlib
import hmac
import html
import ipaddress
import json
import os
import re
import secrets
import signal
import sys
import threading
import time
import traceback
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlencode, urlsplit

# A parent that spawned us from a thread with signals blocked passes that mask on; take them back
# so the tests can stop the server by its PID.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

import jwt  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: E402

DEFAULT_CLIENT = "hostedui000test000client01"
DEFAULT_CALLBACK = "http://127.0.0.1:3000/callback"
DEFAULT_LOGOUT = "http://127.0.0.1:3000/signout"
DEFAULT_SCOPES = ["openid", "email", "phone", "profile", "aws.cognito.signin.user.admin"]
ADMIN_SCOPE = "aws.cognito.signin.user.admin"
CODE_SECONDS = 300
SOCIAL = {"Google", "Facebook", "LoginWithAmazon", "SignInWithApple"}
CHALLENGE = re.compile(r"[A-Za-z0-9._~-]{43,128}")
SCOPE = re.compile(r"[\x21\x23-\x5B\x5D-\x7E]+")
MODES = ("normal", "deny", "forge-state")
COUNT_NAMES = ("authorizeRequests", "authorizeErrors", "authorizePages", "logins", "failedLogins", "signups",
               "federatedSignIns", "codesIssued", "codesExchanged", "codesRefused", "refreshes", "revocations",
               "globalSignOuts", "logouts", "refusedLogouts")
TARGET_PREFIX = "AWSCognitoIdentityProviderService."
MAX_BODY = 1 << 20


def log(*parts):
    if CONFIG.verbose:
        print(*parts, file=sys.stderr, flush=True)


def b64url(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def int_b64url(value):
    return b64url(value.to_bytes((value.bit_length() + 7) // 8, "big"))


def same(a, b):
    return hmac.compare_digest(a.encode(), b.encode())


# --- State (every access under LOCK) --------------------------------------------------------------

LOCK = threading.Lock()
USERS = {}            # username -> {"password", "email", "sub", "groups", "provider"}
CODES = {}            # code -> {"clientId", "redirectUri", "challenge", "scope", "nonce", "username", "expires", "authTime"}
SESSIONS = {}         # origin_jti -> {"refreshToken", "username", "clientId", "scope", "authTime", "revoked"}
REFRESH = {}          # refresh token -> origin_jti
STATE = {}


def fresh_state():
    return {"counts": {name: 0 for name in COUNT_NAMES}, "lastAuthorize": None, "providers": [],
            "federatedUsers": {}, "revokedOriginJtis": [], "logouts": [], "mode": "normal"}


def count(name):
    STATE["counts"][name] += 1


def add_user(username, password, email=None, groups=(), provider=None):
    """Adds a confirmed user (call under LOCK); returns it."""
    user = {"username": username, "password": password, "email": email, "sub": str(uuid.uuid4()),
            "groups": list(groups), "provider": provider, "created": int(time.time() * 1000)}
    USERS[username] = user
    return user


def revoke_session(origin_jti):
    """Marks a session revoked (under LOCK); whether it was live."""
    session = SESSIONS.get(origin_jti)
    if session is None or session["revoked"]:
        return False
    session["revoked"] = True
    STATE["revokedOriginJtis"].append(origin_jti)
    return True


# --- Tokens ---------------------------------------------------------------------------------------

KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PUBLIC_KEY = KEY.public_key()
KID = base64.b64encode(os.urandom(32)).decode()


def jwks():
    numbers = PUBLIC_KEY.public_numbers()
    return {"keys": [{"alg": "RS256", "e": int_b64url(numbers.e), "kid": KID, "kty": "RSA",
                      "n": int_b64url(numbers.n), "use": "sig"}]}


def sign(claims):
    return jwt.encode(claims, KEY, algorithm="RS256", headers={"kid": KID, "typ": None})


def groups_of(user):
    groups = list(user["groups"])
    if user.get("provider"):
        groups.append(f"{CONFIG.pool_id}_{user['provider']}")
    return groups


def issue(user, session, nonce=None, with_id_token=True):
    """(access token, ID token or None) for the session's user, client and scope."""
    now = int(time.time())
    event_id = str(uuid.uuid4())
    groups = groups_of(user)
    access = {"sub": user["sub"], "iss": ISSUER, "client_id": session["clientId"], "origin_jti": session["originJti"],
              "event_id": event_id, "token_use": "access", "scope": session["scope"], "auth_time": session["authTime"],
              "exp": now + CONFIG.access_token_seconds, "iat": now, "jti": str(uuid.uuid4()),
              "username": user["username"], "version": 2}
    if groups:
        access["cognito:groups"] = groups
    access_token = sign(access)
    if not with_id_token:
        return access_token, None
    digest = hashlib.sha256(access_token.encode()).digest()
    claims = {"at_hash": b64url(digest[:16]), "sub": user["sub"], "aud": session["clientId"],
              "cognito:username": user["username"], "token_use": "id", "auth_time": session["authTime"],
              "exp": now + CONFIG.id_token_seconds, "iat": now, "iss": ISSUER, "jti": str(uuid.uuid4()),
              "origin_jti": session["originJti"], "event_id": event_id}
    if user.get("email"):
        claims["email"] = user["email"]
        claims["email_verified"] = True
    if nonce:
        claims["nonce"] = nonce
    if groups:
        claims["cognito:groups"] = groups
    if user.get("provider"):
        provider = user["provider"]
        claims["identities"] = [{"dateCreated": str(user["created"]), "userId": user["username"].rsplit("_", 1)[1],
                                 "providerName": provider,
                                 "providerType": provider if provider in SOCIAL else "OIDC",
                                 "issuer": None, "primary": "true"}]
    return access_token, sign(claims)


def new_session(username, client_id, scope, auth_time):
    """A session with a new refresh token (under LOCK)."""
    origin_jti = str(uuid.uuid4())
    refresh_token = b64url(secrets.token_bytes(40))
    session = {"originJti": origin_jti, "refreshToken": refresh_token, "username": username, "clientId": client_id,
               "scope": scope, "authTime": auth_time, "revoked": False}
    SESSIONS[origin_jti] = session
    REFRESH[refresh_token] = origin_jti
    return session


class TokenProblem(Exception):
    pass


def check_access_token(token, scope=None):
    """(claims, user, session) of a live access token, or TokenProblem with Cognito's message."""
    try:
        claims = jwt.decode(token or "", PUBLIC_KEY, algorithms=["RS256"], issuer=ISSUER,
                            options={"require": ["exp", "iat", "origin_jti", "token_use", "username"]})
    except jwt.ExpiredSignatureError:
        raise TokenProblem("Access Token has expired")
    except jwt.PyJWTError:
        raise TokenProblem("Invalid Access Token")
    if claims.get("token_use") != "access":
        raise TokenProblem("Invalid Access Token")
    with LOCK:
        session = SESSIONS.get(claims["origin_jti"])
        user = USERS.get(claims["username"])
        if session is None or user is None or user["sub"] != claims.get("sub"):
            raise TokenProblem("Invalid Access Token")
        if session["revoked"]:
            raise TokenProblem("Access Token has been revoked")
        session = dict(session)
        user = dict(user)
    if scope and scope not in claims.get("scope", "").split():
        raise TokenProblem("Access Token does not have required scopes")
    return claims, user, session


def is_our_jwt(token):
    try:
        jwt.decode(token, PUBLIC_KEY, algorithms=["RS256"], options={"verify_exp": False, "verify_aud": False})
        return True
    except jwt.PyJWTError:
        return False


# --- Pages ----------------------------------------------------------------------------------------

AUTHORIZE_PARAMETERS = ("response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge",
                        "code_challenge_method", "nonce")


def page(title, body):
    return (f"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title></head>\n"
            f"<body>\n<h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n").encode()


def hidden_inputs(params):
    return "\n".join(f"<input type=\"hidden\" name=\"{name}\" value=\"{html.escape(params[name])}\">"
                     for name in AUTHORIZE_PARAMETERS if name in params)


def authorize_query(params):
    return urlencode([(name, params[name]) for name in AUTHORIZE_PARAMETERS if name in params])


def sign_in_page(params, error=None):
    message = f"<p id=\"loginErrorMessage\" class=\"error\">{html.escape(error)}</p>\n" if error else ""
    return page("Sign in", f"""{message}<form method="post" action="/login" name="cognitoSignInForm">
{hidden_inputs(params)}
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<input id="signInSubmitButton" name="signInSubmitButton" type="submit" value="Sign in">
</form>
<p>Need an account? <a id="signUpLink" href="/signup?{html.escape(authorize_query(params))}">Sign up</a></p>""")


def sign_up_page(params, error=None):
    message = f"<p id=\"signupErrorMessage\" class=\"error\">{html.escape(error)}</p>\n" if error else ""
    return page("Sign up", f"""{message}<form method="post" action="/signup" name="cognitoSignUpForm">
{hidden_inputs(params)}
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" required>
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required>
<input id="signUpButton" name="signUpButton" type="submit" value="Sign up">
</form>
<p>Have an account? <a id="signInLink" href="/login?{html.escape(authorize_query(params))}">Sign in</a></p>""")


def error_page(problem):
    return page("Error", f"<p id=\"errorMessage\">An error was encountered with the requested page: "
                         f"{html.escape(problem)}</p>")


def with_query(url, pairs):
    return url + ("&" if "?" in url else "?") + urlencode(pairs)


# --- Requests -------------------------------------------------------------------------------------

class Refused(Exception):
    """An answer other than 200, raised from inside a handler."""

    def __init__(self, status, body, content_type, headers=None):
        self.status, self.body, self.content_type, self.headers = status, body, content_type, headers or {}


def oauth_error(status, error, description=None):
    body = {"error": error}
    if description:
        body["error_description"] = description
    headers = {"WWW-Authenticate": "Basic realm=\"oauth2\""} if status == 401 else {}
    return Refused(status, json.dumps(body).encode(), "application/json;charset=UTF-8", headers)


class CognitoError(Exception):
    def __init__(self, error_type, message):
        super().__init__(message)
        self.error_type, self.message = error_type, message


def single(pairs, problem):
    """The parameters as a dict; `problem(text)` is raised for a repeated one."""
    params = {}
    for name, value in pairs:
        if name in params:
            raise problem(f"the parameter {name} is repeated")
        params[name] = value
    return params


def authorize_problem(params):
    """What is wrong with an authorize request, or None."""
    client_id = params.get("client_id", "")
    if not client_id:
        return "client_id is missing"
    if client_id not in CONFIG.client_id:
        return "invalid client_id"
    redirect_uri = params.get("redirect_uri", "")
    if not redirect_uri:
        return "redirect_uri is missing"
    if redirect_uri not in CONFIG.callback_url:
        return "redirect_mismatch (redirect_uri is not a callback URL of the app client)"
    if params.get("response_type") != "code":
        return "unsupported response_type (only code)"
    if params.get("code_challenge_method") != "S256":
        return "code_challenge_method must be S256"
    if not CHALLENGE.fullmatch(params.get("code_challenge", "")):
        return "code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~]"
    if not all(SCOPE.fullmatch(scope) for scope in params.get("scope", "").split()):
        return "invalid_scope"
    return None


def granted_scope(params):
    scopes = []
    for scope in params.get("scope", "").split() or DEFAULT_SCOPES:
        if scope not in scopes:
            scopes.append(scope)
    return " ".join(scopes)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; without TCP_NODELAY each kept-alive request
    # waits 40 ms for the client's delayed ACK.
    disable_nagle_algorithm = True
    server_version = "HostedUIStandIn/1"

    def version_string(self):
        return self.server_version

    def log_message(self, *args):
        pass

    # --- plumbing ---

    def read_body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline().strip():
                        pass
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
                if len(body) > MAX_BODY:
                    raise Refused(413, b"too large", "text/plain")
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self.close_connection = True
            raise Refused(413, b"too large", "text/plain")
        return self.rfile.read(length) if length > 0 else b""

    def reply(self, status, body, content_type, headers=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def json(self, value, status=200, headers=None):
        self.reply(status, json.dumps(value).encode(), "application/json;charset=UTF-8", headers)

    def html(self, body, status=200):
        self.reply(status, body, "text/html;charset=UTF-8", {"Cache-Control": "no-store"})

    def redirect(self, location):
        self.reply(302, b"", "text/plain", {"Location": location, "Cache-Control": "no-store"})

    def form(self):
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        body = self.read_body()
        if content_type != "application/x-www-form-urlencoded":
            raise oauth_error(400, "invalid_request", "Content-Type must be application/x-www-form-urlencoded")
        try:
            pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
        except UnicodeDecodeError:
            raise oauth_error(400, "invalid_request", "the body is not UTF-8")
        return single(pairs, lambda text: oauth_error(400, "invalid_request", text))

    def dispatch(self):
        url = urlsplit(self.path)
        log(self.command, url.path)
        try:
            route = ROUTES.get((self.command, url.path))
            if route is None and url.path == f"/{CONFIG.pool_id}/.well-known/jwks.json" and self.command == "GET":
                route = Handler.get_jwks
            if route is None and url.path == f"/{CONFIG.pool_id}/.well-known/openid-configuration" and self.command == "GET":
                route = Handler.get_openid_configuration
            if route is None:
                self.read_body()
                known = any(path == url.path for _, path in ROUTES)
                self.reply(405 if known else 404, b"not found" if not known else b"method not allowed", "text/plain")
                return
            route(self, url)
        except Refused as refused:
            self.reply(refused.status, refused.body, refused.content_type, refused.headers)
        except Exception:  # noqa: BLE001 - a stand-in answers 500 and keeps serving
            traceback.print_exc(file=sys.stderr)
            try:
                self.json({"error": "server_error"}, 500)
            except OSError:
                pass

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = dispatch

    # --- hosted UI ---

    def authorize_params(self, url):
        pairs = parse_qsl(url.query, keep_blank_values=True)
        return single(pairs, lambda text: Refused(400, error_page(text), "text/html;charset=UTF-8"))

    def get_authorize(self, url):
        with LOCK:
            count("authorizeRequests")
            STATE["lastAuthorize"] = dict(parse_qsl(url.query, keep_blank_values=True))
        try:
            params = self.authorize_params(url)
        except Refused:
            with LOCK:
                count("authorizeErrors")
            raise
        problem = authorize_problem(params)
        if problem:
            with LOCK:
                count("authorizeErrors")
            self.html(error_page(problem), 400)
            return
        provider = params.get("identity_provider", "")
        if provider and provider.upper() != "COGNITO":
            self.federated_sign_in(params, provider)
            return
        with LOCK:
            count("authorizePages")
        self.html(sign_in_page(params))

    def get_login(self, url):
        params = self.authorize_params(url)
        problem = authorize_problem(params)
        if problem:
            self.html(error_page(problem), 400)
            return
        with LOCK:
            count("authorizePages")
        self.html(sign_in_page(params))

    def posted_params(self):
        """The form of POST /login or /signup, with its authorize parameters checked again."""
        params = single(parse_qsl(self.read_body().decode("utf-8", "replace"), keep_blank_values=True),
                        lambda text: Refused(400, error_page(text), "text/html;charset=UTF-8"))
        problem = authorize_problem(params)
        if problem:
            raise Refused(400, error_page(problem), "text/html;charset=UTF-8")
        return params

    def post_login(self, _url):
        params = self.posted_params()
        username, password = params.get("username", ""), params.get("password", "")
        with LOCK:
            user = USERS.get(username)
            right = user is not None and user["provider"] is None and same(user["password"], password)
            count("logins" if right else "failedLogins")
        if not right:
            self.html(sign_in_page(params, "Incorrect username or password."))
            return
        self.signed_in(params, username)

    def get_signup(self, url):
        params = self.authorize_params(url)
        problem = authorize_problem(params)
        if problem:
            self.html(error_page(problem), 400)
            return
        self.html(sign_up_page(params))

    def post_signup(self, _url):
        params = self.posted_params()
        username, email, password = params.get("username", ""), params.get("email", ""), params.get("password", "")
        if not username or not password or not email:
            self.html(sign_up_page(params, "Username, email and password are required."))
            return
        with LOCK:
            taken = username in USERS
            if not taken:
                add_user(username, password, email)
                count("signups")
                count("logins")
        if taken:
            self.html(sign_up_page(params, "User already exists"))
            return
        self.signed_in(params, username)

    def federated_sign_in(self, params, provider):
        with LOCK:
            username = STATE["federatedUsers"].get(provider)
            if username is None or username not in USERS:
                username = next(name for name in iter(lambda: f"{provider}_{secrets.randbelow(10 ** 12):012d}", None)
                                if name not in USERS)
                add_user(username, None, f"{username.lower()}@example.com", provider=provider)
                STATE["federatedUsers"][provider] = username
            STATE["providers"].append(provider)
            count("federatedSignIns")
            count("logins")
        self.signed_in(params, username)

    def signed_in(self, params, username):
        """The redirect after a successful sign-in: a code, or what the mode says."""
        redirect_uri, state = params["redirect_uri"], params.get("state")
        with LOCK:
            mode = STATE["mode"]
            if mode == "deny":
                pairs = [("error", "access_denied"), ("error_description", "The user denied the request")]
            else:
                code = str(uuid.uuid4())
                CODES[code] = {"clientId": params["client_id"], "redirectUri": redirect_uri,
                               "challenge": params["code_challenge"], "scope": granted_scope(params),
                               "nonce": params.get("nonce") or None, "username": username,
                               "expires": time.time() + CODE_SECONDS, "authTime": int(time.time())}
                count("codesIssued")
                pairs = [("code", code)]
        if mode == "forge-state":
            pairs.append(("state", "forged-" + b64url(secrets.token_bytes(12))))
        elif state is not None:
            pairs.append(("state", state))
        self.redirect(with_query(redirect_uri, pairs))

    def get_logout(self, url):
        params = dict(parse_qsl(url.query, keep_blank_values=True))
        client_id, logout_uri = params.get("client_id", ""), params.get("logout_uri", "")
        problem = None
        if client_id not in CONFIG.client_id:
            problem = "invalid client_id"
        elif logout_uri not in CONFIG.logout_url:
            problem = "logout_uri is not a sign-out URL of the app client"
        with LOCK:
            if problem:
                count("refusedLogouts")
            else:
                count("logouts")
                STATE["logouts"].append({"clientId": client_id, "logoutUri": logout_uri})
        if problem:
            self.html(error_page(problem), 400)
        else:
            self.redirect(logout_uri)

    # --- OAuth endpoints ---

    def client_of(self, form):
        """The authenticated client id, or a 401 invalid_client."""
        header = self.headers.get("Authorization") or ""
        basic = None
        if header[:6].lower() == "basic ":
            try:
                client, separator, secret = base64.b64decode(header[6:].strip(), validate=True).decode().partition(":")
            except (ValueError, UnicodeDecodeError):
                raise oauth_error(401, "invalid_client")
            if not separator:
                raise oauth_error(401, "invalid_client")
            basic = (client, secret)
        named = form.get("client_id") or None
        if CONFIG.client_secret is not None:
            if basic is None or basic[0] not in CONFIG.client_id or not same(basic[1], CONFIG.client_secret):
                raise oauth_error(401, "invalid_client")
            if named is not None and named != basic[0]:
                raise oauth_error(401, "invalid_client")
            return basic[0]
        client = named or (basic[0] if basic else None)
        if client not in CONFIG.client_id or (basic is not None and basic[0] != client):
            raise oauth_error(401, "invalid_client")
        return client

    def post_token(self, _url):
        form = self.form()
        client = self.client_of(form)
        grant = form.get("grant_type")
        headers = {"Cache-Control": "no-store", "Pragma": "no-cache"}
        if grant == "authorization_code":
            self.json(self.exchange_code(form, client), headers=headers)
        elif grant == "refresh_token":
            self.json(self.refresh_grant(form, client), headers=headers)
        elif not grant:
            raise oauth_error(400, "invalid_request", "grant_type is missing")
        else:
            raise oauth_error(400, "unsupported_grant_type")

    def exchange_code(self, form, client):
        with LOCK:
            grant = CODES.pop(form.get("code", ""), None)
            refused = (grant is None or grant["expires"] < time.time() or grant["clientId"] != client
                       or form.get("redirect_uri") != grant["redirectUri"])
            if refused:
                count("codesRefused")
        if refused:
            raise oauth_error(400, "invalid_grant")
        verifier = form.get("code_verifier", "")
        if (not CHALLENGE.fullmatch(verifier)
                or not same(b64url(hashlib.sha256(verifier.encode()).digest()), grant["challenge"])):
            with LOCK:
                count("codesRefused")
            raise oauth_error(400, "invalid_grant", "PKCE verification failed")
        with LOCK:
            user = USERS.get(grant["username"])
            if user is None:
                count("codesRefused")
                raise oauth_error(400, "invalid_grant")
            user = dict(user)
            session = dict(new_session(user["username"], client, grant["scope"], grant["authTime"]))
            count("codesExchanged")
        access, id_token = issue(user, session, grant["nonce"], "openid" in grant["scope"].split())
        answer = {"access_token": access, "refresh_token": session["refreshToken"],
                  "expires_in": CONFIG.access_token_seconds, "token_type": "Bearer"}
        if id_token:
            answer["id_token"] = id_token
        return answer

    def refresh_grant(self, form, client):
        with LOCK:
            session = SESSIONS.get(REFRESH.get(form.get("refresh_token", ""), ""))
            user = USERS.get(session["username"]) if session else None
            if session is None or session["revoked"] or session["clientId"] != client or user is None:
                raise oauth_error(400, "invalid_grant")
            session, user = dict(session), dict(user)
            count("refreshes")
        access, id_token = issue(user, session, None, "openid" in session["scope"].split())
        answer = {"access_token": access, "expires_in": CONFIG.access_token_seconds, "token_type": "Bearer"}
        if id_token:
            answer["id_token"] = id_token
        return answer

    def post_revoke(self, _url):
        form = self.form()
        client = self.client_of(form)
        token = form.get("token", "")
        if not token:
            raise oauth_error(400, "invalid_request", "token is missing")
        with LOCK:
            origin_jti = REFRESH.get(token)
            session = SESSIONS.get(origin_jti) if origin_jti else None
            if session is not None and session["clientId"] != client:
                raise oauth_error(400, "invalid_request", "the token was not issued to this client")
            if session is not None and revoke_session(origin_jti):
                count("revocations")
        if session is None and is_our_jwt(token):
            raise oauth_error(400, "unsupported_token_type")
        self.reply(200, b"", "application/json;charset=UTF-8", {"Cache-Control": "no-store"})

    def user_info(self, _url):
        self.read_body()
        header = self.headers.get("Authorization") or ""
        refused = oauth_error(401, "invalid_token")
        refused.headers = {"WWW-Authenticate": "Bearer error=\"invalid_token\""}
        if header[:7].lower() != "bearer ":
            raise refused
        try:
            claims, user, _ = check_access_token(header[7:].strip(), scope="openid")
        except TokenProblem:
            raise refused
        answer = {"sub": user["sub"], "username": user["username"]}
        if user.get("email"):
            answer["email"], answer["email_verified"] = user["email"], "true"
        self.json(answer)

    def get_jwks(self, _url):
        self.json(jwks())

    def get_openid_configuration(self, _url):
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.json({
            "issuer": ISSUER, "authorization_endpoint": base + "/oauth2/authorize", "token_endpoint": base + "/oauth2/token",
            "revocation_endpoint": base + "/oauth2/revoke", "userinfo_endpoint": base + "/oauth2/userInfo",
            "end_session_endpoint": base + "/logout", "jwks_uri": f"{base}/{CONFIG.pool_id}/.well-known/jwks.json",
            "response_types_supported": ["code"], "grant_types_supported": ["authorization_code", "refresh_token"],
            "scopes_supported": DEFAULT_SCOPES, "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"], "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic"] if CONFIG.client_secret else ["none"],
        })

    # --- Cognito Identity Provider (JSON 1.1) ---

    def post_cognito(self, _url):
        body = self.read_body()
        target = self.headers.get("X-Amz-Target") or ""
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        try:
            if content_type not in ("application/x-amz-json-1.1", "application/json"):
                raise CognitoError("SerializationException", "Content-Type must be application/x-amz-json-1.1")
            operation = target[len(TARGET_PREFIX):] if target.startswith(TARGET_PREFIX) else None
            handler = COGNITO_OPERATIONS.get(operation)
            if handler is None:
                raise CognitoError("InvalidParameterException", f"The stand-in does not implement {target or 'that operation'}.")
            try:
                request = json.loads(body or b"{}")
            except ValueError:
                raise CognitoError("SerializationException", "The body is not JSON.")
            if not isinstance(request, dict):
                raise CognitoError("SerializationException", "The body is not a JSON object.")
            answer = handler(request)
        except CognitoError as error:
            self.reply(400, json.dumps({"__type": error.error_type, "message": error.message}).encode(),
                       "application/x-amz-json-1.1", {"x-amzn-ErrorType": error.error_type,
                                                      "x-amzn-RequestId": str(uuid.uuid4())})
            return
        self.reply(200, json.dumps(answer).encode(), "application/x-amz-json-1.1", {"x-amzn-RequestId": str(uuid.uuid4())})

    # --- control ---

    def health(self, _url):
        self.read_body()
        self.reply(200, b"ok", "text/plain")

    def control_state(self, _url):
        with LOCK:
            answer = json.loads(json.dumps(STATE))
            answer["users"] = sorted(USERS)
            answer["sessions"] = len(SESSIONS)
        self.json(answer)

    def control_reset(self, _url):
        self.read_body()
        with LOCK:
            CODES.clear()
            SESSIONS.clear()
            REFRESH.clear()
            federated = STATE.get("federatedUsers", {})
            STATE.clear()
            STATE.update(fresh_state())
            # The federated users stay (users are kept), so the same provider gives the same user.
            STATE["federatedUsers"] = federated
        self.json({})

    def control_mode(self, url):
        self.read_body()
        name = dict(parse_qsl(url.query)).get("name", "")
        if name not in MODES:
            self.json({"error": f"name must be one of {', '.join(MODES)}"}, 400)
            return
        with LOCK:
            STATE["mode"] = name
        self.json({"mode": name})

    def control_users(self, _url):
        try:
            request = json.loads(self.read_body() or b"{}")
        except ValueError:
            request = None
        if (not isinstance(request, dict) or not isinstance(request.get("username"), str) or not request["username"]
                or not isinstance(request.get("password"), str) or not request["password"]):
            self.json({"error": "give {\"username\", \"password\", \"email\"?, \"groups\"?}"}, 400)
            return
        groups = request.get("groups") or []
        with LOCK:
            if request["username"] in USERS:
                answer = None
            else:
                answer = add_user(request["username"], request["password"], request.get("email") or None,
                                  [str(group) for group in groups])
        if answer is None:
            self.json({"error": "UsernameExistsException"}, 409)
        else:
            self.json({"username": answer["username"], "sub": answer["sub"]})


def cognito_client(request):
    client = request.get("ClientId")
    if client not in CONFIG.client_id:
        raise CognitoError("ResourceNotFoundException", f"User pool client {client} does not exist.")
    return client


def op_revoke_token(request):
    client = cognito_client(request)
    if CONFIG.client_secret is not None and not same(str(request.get("ClientSecret") or ""), CONFIG.client_secret):
        raise CognitoError("NotAuthorizedException", f"Client {client} is configured with secret but it was not received or is wrong.")
    token = request.get("Token")
    if not isinstance(token, str) or not token:
        raise CognitoError("InvalidParameterException", "Token is required.")
    with LOCK:
        origin_jti = REFRESH.get(token)
        session = SESSIONS.get(origin_jti) if origin_jti else None
        if session is not None and session["clientId"] != client:
            raise CognitoError("UnauthorizedException", "The token was not issued to this client.")
        if session is not None and revoke_session(origin_jti):
            count("revocations")
    if session is None and is_our_jwt(token):
        raise CognitoError("UnsupportedTokenTypeException", "Only refresh tokens can be revoked.")
    return {}


def op_initiate_auth(request):
    client = cognito_client(request)
    if request.get("AuthFlow") not in ("REFRESH_TOKEN_AUTH", "REFRESH_TOKEN"):
        raise CognitoError("InvalidParameterException",
                           f"The stand-in implements only REFRESH_TOKEN_AUTH, not {request.get('AuthFlow')}.")
    parameters = request.get("AuthParameters") or {}
    if not isinstance(parameters, dict):
        raise CognitoError("SerializationException", "AuthParameters must be an object.")
    token = parameters.get("REFRESH_TOKEN")
    if not isinstance(token, str) or not token:
        raise CognitoError("InvalidParameterException", "Missing required parameter REFRESH_TOKEN")
    with LOCK:
        session = SESSIONS.get(REFRESH.get(token, ""))
        user = USERS.get(session["username"]) if session else None
        if session is None or user is None or session["clientId"] != client:
            raise CognitoError("NotAuthorizedException", "Invalid Refresh Token")
        if session["revoked"]:
            raise CognitoError("NotAuthorizedException", "Refresh Token has been revoked")
        session, user = dict(session), dict(user)
    if CONFIG.client_secret is not None:
        given = str(parameters.get("SECRET_HASH") or "")
        expected = [base64.b64encode(hmac.new(CONFIG.client_secret.encode(), (name + client).encode(),
                                              hashlib.sha256).digest()).decode()
                    for name in (user["username"], user["sub"])]
        if not any(same(given, hash_) for hash_ in expected):
            raise CognitoError("NotAuthorizedException", f"Unable to verify secret hash for client {client}")
    with LOCK:
        count("refreshes")
    access, id_token = issue(user, session, None, True)
    return {"ChallengeParameters": {}, "AuthenticationResult": {
        "AccessToken": access, "IdToken": id_token, "ExpiresIn": CONFIG.access_token_seconds, "TokenType": "Bearer"}}


def checked_user(request):
    try:
        return check_access_token(request.get("AccessToken") if isinstance(request.get("AccessToken"), str) else "",
                                  scope=ADMIN_SCOPE)
    except TokenProblem as problem:
        raise CognitoError("NotAuthorizedException", str(problem))


def op_get_user(request):
    _, user, _ = checked_user(request)
    attributes = [{"Name": "sub", "Value": user["sub"]}]
    if user.get("email"):
        attributes += [{"Name": "email", "Value": user["email"]}, {"Name": "email_verified", "Value": "true"}]
    if user.get("provider"):
        attributes.append({"Name": "identities", "Value": json.dumps([{
            "userId": user["username"].rsplit("_", 1)[1], "providerName": user["provider"],
            "providerType": user["provider"] if user["provider"] in SOCIAL else "OIDC", "issuer": None,
            "primary": True, "dateCreated": user["created"]}])})
    return {"Username": user["username"], "UserAttributes": attributes}


def op_global_sign_out(request):
    _, user, _ = checked_user(request)
    with LOCK:
        for origin_jti, session in list(SESSIONS.items()):
            if session["username"] == user["username"]:
                revoke_session(origin_jti)
        count("globalSignOuts")
    return {}


COGNITO_OPERATIONS = {"RevokeToken": op_revoke_token, "InitiateAuth": op_initiate_auth, "GetUser": op_get_user,
                      "GlobalSignOut": op_global_sign_out}
ROUTES = {
    ("GET", "/health"): Handler.health,
    ("GET", "/control/state"): Handler.control_state,
    ("POST", "/control/reset"): Handler.control_reset,
    ("POST", "/control/mode"): Handler.control_mode,
    ("POST", "/control/users"): Handler.control_users,
    ("GET", "/oauth2/authorize"): Handler.get_authorize,
    ("GET", "/login"): Handler.get_login,
    ("POST", "/login"): Handler.post_login,
    ("GET", "/signup"): Handler.get_signup,
    ("POST", "/signup"): Handler.post_signup,
    ("POST", "/oauth2/token"): Handler.post_token,
    ("POST", "/oauth2/revoke"): Handler.post_revoke,
    ("GET", "/oauth2/userInfo"): Handler.user_info,
    ("POST", "/oauth2/userInfo"): Handler.user_info,
    ("GET", "/logout"): Handler.get_logout,
    ("GET", "/.well-known/jwks.json"): Handler.get_jwks,
    ("GET", "/.well-known/openid-configuration"): Handler.get_openid_configuration,
    ("POST", "/"): Handler.post_cognito,
}


# --- Start ----------------------------------------------------------------------------------------

class Server(ThreadingHTTPServer):
    request_queue_size = 128
    daemon_threads = True
    allow_reuse_address = True


def parse_args():
    parser = argparse.ArgumentParser(description="A local stand-in for Cognito's hosted UI (OAuth 2.0 endpoints)")
    parser.add_argument("--port", type=int, required=True, help="0 picks a free port (printed in READY)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--pool-id", default="us-east-1_HostedUI")
    parser.add_argument("--region")
    parser.add_argument("--client-id", action="append")
    parser.add_argument("--client-secret")
    parser.add_argument("--callback-url", action="append")
    parser.add_argument("--logout-url", action="append")
    parser.add_argument("--user", action="append", default=[], help="username:password[:email]")
    parser.add_argument("--group", action="append", default=[], help="username:group")
    parser.add_argument("--access-token-seconds", type=int, default=3600)
    parser.add_argument("--id-token-seconds", type=int, default=3600)
    parser.add_argument("--exit-with-stdin", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    try:
        loopback = ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        parser.error("--host must be a loopback address (127.0.0.1)")
    if not re.fullmatch(r"[\w-]+_[0-9A-Za-z]+", args.pool_id):
        parser.error("--pool-id must look like us-east-1_AbCdEfGhI")
    args.region = args.region or args.pool_id.split("_", 1)[0]
    args.client_id = args.client_id or [DEFAULT_CLIENT]
    args.callback_url = args.callback_url or [DEFAULT_CALLBACK]
    args.logout_url = args.logout_url or [DEFAULT_LOGOUT]
    if args.client_secret == "":
        parser.error("--client-secret must not be empty")
    if args.access_token_seconds <= 0 or args.id_token_seconds <= 0:
        parser.error("token lifetimes must be positive")
    users = []
    for spec in args.user:
        username, separator, rest = spec.partition(":")
        if not username or not separator or not rest:
            parser.error(f"--user wants username:password[:email], got {username or '(empty)'}:...")
        password, email = rest, None
        head, _, tail = rest.rpartition(":")
        if head and "@" in tail:
            password, email = head, tail
        users.append((username, password, email))
    groups = []
    for spec in args.group:
        username, separator, group = spec.partition(":")
        if not username or not separator or not group:
            parser.error("--group wants username:group")
        if username not in {user[0] for user in users}:
            parser.error(f"--group names {username}, who is not a --user")
        groups.append((username, group))
    args.users, args.groups = users, groups
    return args


def main():
    for username, password, email in CONFIG.users:
        add_user(username, password, email, [group for name, group in CONFIG.groups if name == username])
    STATE.update(fresh_state())
    server = Server((CONFIG.host, CONFIG.port), Handler)

    def stop(*_):
        threading.Thread(target=server.shutdown, daemon=True).start()

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
    if CONFIG.exit_with_stdin:
        def watch_stdin():
            while sys.stdin.buffer.read(4096):
                pass
            stop()
        threading.Thread(target=watch_stdin, daemon=True).start()
    print(f"READY {server.server_address[1]}", flush=True)
    server.serve_forever(poll_interval=0.2)
    server.server_close()


CONFIG = parse_args()
ISSUER = f"https://cognito-idp.{CONFIG.region}.amazonaws.com/{CONFIG.pool_id}"
if __name__ == "__main__":
    main()
