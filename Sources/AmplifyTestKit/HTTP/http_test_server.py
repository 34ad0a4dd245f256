"""A small HTTP server for the HTTP client's tests: listens on 127.0.0.1 on a free port, prints
"PORT <n>" on its first line, and serves until it is terminated.

With `--proxy-to PORT` it is instead a forwarding proxy in front of another server on 127.0.0.1
(moto_server): every request goes there unchanged (Host and signature included) and the answer
comes back, except that `/__control/cut?after=N` arms a cut: the next GET answered 200 or 206 is
sent with its full headers and only N bytes of its body, then the connection is closed.
`/__control/log` lists the requests forwarded (method, path, Range, If-Match, status)."""
import base64
import hashlib
import hmac
import http.client
import json
import re
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, parse_qsl, quote, unquote, urlparse


COUNTS = {}
STORED = {}
CODES = {}
SEEN = {}
BLOCK = bytes(i % 251 for i in range(1 << 16))
BLACKHOLE = []
LOCK = threading.Lock()


def pattern(start, end):
    """Bytes start..<end of the endless test pattern (byte i is i % 251)."""
    out = bytearray()
    position = start
    while position < end:
        offset = position % 251
        piece = BLOCK[offset: offset + min(len(BLOCK) - offset, end - position)]
        out += piece
        position += len(piece)
    return bytes(out)


def parse_range(header, size):
    """(first, last) of a `bytes=a-b`, `bytes=a-` or `bytes=-n` Range within size, or None."""
    match = re.fullmatch(r"bytes=(\d*)-(\d*)", header or "")
    if not match or (match.group(1) == "" and match.group(2) == ""):
        return None
    if match.group(1) == "":
        count = int(match.group(2))
        return max(0, size - count), size - 1
    first = int(match.group(1))
    last = min(int(match.group(2)), size - 1) if match.group(2) else size - 1
    return first, last


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; without TCP_NODELAY each kept-alive request
    # waits 40 ms for the client's delayed ACK.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def read_body(self):
        digest = hashlib.sha256()
        remaining = int(self.headers.get("Content-Length") or 0)
        total = 0
        while remaining > 0:
            chunk = self.rfile.read(min(remaining, 1 << 20))
            if not chunk:
                break
            digest.update(chunk)
            total += len(chunk)
            remaining -= len(chunk)
        return total, digest.hexdigest()

    def reply(self, status, body, content_type="application/octet-stream"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Test-Server", "yes")
        self.end_headers()
        self.wfile.write(body)

    def handle_any(self):
        url = urlparse(self.path)
        query = parse_qs(url.query)
        if url.path.startswith("/s3stall/"):
            self.handle_stall_forever()
            return
        if url.path == "/stall":
            self.handle_body_fault(query, "stall")
            return
        if url.path == "/cut":
            self.handle_body_fault(query, "cut")
            return
        if url.path == "/seen":
            key = query.get("key", [""])[0]
            with LOCK:
                seen = list(SEEN.get(key, []))
            self.reply(200, json.dumps(seen).encode(), "application/json")
            return
        if url.path == "/blackhole":
            self.reply(200, json.dumps({"port": blackhole_port()}).encode(), "application/json")
            return
        if url.path == "/bytes":
            count = int(query.get("n", ["0"])[0])
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(count))
            self.end_headers()
            sent = 0
            while sent < count:
                piece = BLOCK[: min(len(BLOCK), count - sent)]
                self.wfile.write(piece)
                sent += len(piece)
            return
        if url.path == "/linger-shut-count":
            with LOCK:
                count = COUNTS.get("linger-shut", 0)
            self.reply(200, str(count).encode(), "text/plain")
            return
        if url.path == "/linger-close":
            # Answered on a kept-alive connection, which the server then shuts after ms
            # milliseconds of idling (a server's idle timeout, seen by a client holding it).
            self.reply(200, b"kept", "text/plain")
            self.wfile.flush()
            connection = self.connection

            def shut():
                try:
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                with LOCK:
                    COUNTS["linger-shut"] = COUNTS.get("linger-shut", 0) + 1
            threading.Timer(int(query.get("ms", ["50"])[0]) / 1000, shut).start()
            return
        if url.path == "/slow":
            time.sleep(int(query.get("ms", ["1000"])[0]) / 1000)
            self.reply(200, b"done", "text/plain")
            return
        if url.path == "/json":
            self.handle_json()
            return
        if url.path.startswith("/execute-api/"):
            self.handle_execute_api(url)
            return
        if url.path.startswith("/rest/"):
            self.handle_rest(url.path, query)
            return
        if url.path.startswith("/stored/"):
            self.handle_stored(url.path[len("/stored/"):])
            return
        if url.path == "/replay":
            self.handle_replay()
            return
        if url.path.startswith("/oauth2/"):
            self.handle_oauth(url.path, query)
            return
        length, digest = self.read_body()
        if url.path == "/echo":
            body = json.dumps({
                "method": self.command, "path": url.path, "query": url.query,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "bodyLength": length, "bodySHA256": digest,
            }).encode()
            self.reply(int(query.get("status", ["200"])[0]), body, "application/json")
            return
        self.reply(404, b"not found", "text/plain")

    def handle_stall_forever(self):
        """An S3 stand-in that never answers: a GET gets its headers and 1000 bytes of a 1 MiB
        body, then nothing; anything else is never read nor answered."""
        if self.command == "GET":
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(1 << 20))
            self.end_headers()
            self.wfile.write(pattern(0, 1000))
            self.wfile.flush()
        time.sleep(120)
        self.close_connection = True

    def handle_body_fault(self, query, mode):
        """/stall and /cut?key=K&n=N&after=A: an object of N pattern bytes (ETag "v1-K"; with
        changeEtag=1, "v2-K" from the second request on) that honours Range and If-Match. /stall
        sends A bytes of every answer's body, then stalls; /cut sends A bytes of the first answer's
        body, then closes the connection, and whole bodies after that. /seen?key=K lists the Range
        and If-Match of each request."""
        key = query.get("key", [""])[0]
        size = int(query.get("n", ["100000"])[0])
        after = int(query.get("after", ["1000"])[0])
        with LOCK:
            COUNTS[key] = COUNTS.get(key, 0) + 1
            count = COUNTS[key]
            SEEN.setdefault(key, []).append({"range": self.headers.get("Range"), "ifMatch": self.headers.get("If-Match")})
        etag = '"%s-%s"' % ("v2" if query.get("changeEtag", ["0"])[0] == "1" and count > 1 else "v1", key)
        if_match = self.headers.get("If-Match")
        if if_match is not None and if_match != etag:
            body = b"<?xml version=\"1.0\"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>"
            self.reply(412, body, "application/xml")
            return
        wanted = parse_range(self.headers.get("Range"), size)
        first, last = wanted if wanted else (0, size - 1)
        self.send_response(206 if wanted else 200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(last - first + 1))
        self.send_header("ETag", etag)
        if wanted:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (first, last, size))
        self.end_headers()
        body = pattern(first, last + 1)
        if mode == "stall":
            self.wfile.write(body[:after])
            self.wfile.flush()
            time.sleep(120)
            self.close_connection = True
        elif mode == "cut" and count == 1:
            self.wfile.write(body[:after])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
        else:
            self.wfile.write(body)

    def handle_json(self):
        """An AWS JSON 1.1 stand-in: the X-Amz-Target picks the behaviour, the body's "key" counts calls."""
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        key = body.get("key", "")
        COUNTS[key] = COUNTS.get(key, 0) + 1
        count = COUNTS[key]
        target = self.headers.get("X-Amz-Target", "")
        def answer(status, value):
            self.reply(status, json.dumps(value).encode(), "application/x-amz-json-1.1")
        if target == "Test.Echo":
            answer(200, {"target": target, "authorization": self.headers.get("Authorization"),
                         "contentType": self.headers.get("Content-Type"), "body": body})
        elif target == "Test.FailTwice":
            if count <= 2:
                answer(500, {"__type": "InternalErrorException", "message": "try again"})
            else:
                answer(200, {"attempts": count})
        elif target == "Test.Throttle":
            if count == 1:
                answer(400, {"__type": "ThrottlingException", "message": "Rate exceeded"})
            else:
                answer(200, {"attempts": count})
        elif target == "Test.Deny":
            answer(400, {"__type": "com.amazonaws.cognito#NotAuthorizedException", "message": "Incorrect username or password."})
        elif target == "AWSCognitoIdentityService.GetId":
            if body.get("IdentityPoolId") != "us-east-1:pool":
                answer(400, {"__type": "ResourceNotFoundException", "message": "IdentityPool not found"})
            elif body.get("Logins"):
                token = sorted(body["Logins"].values())[0]
                answer(200, {"IdentityId": "us-east-1:user-" + hashlib.sha256(token.encode()).hexdigest()[:8]})
            else:
                COUNTS["guest"] = COUNTS.get("guest", 0) + 1
                answer(200, {"IdentityId": "us-east-1:guest-%d" % COUNTS["guest"]})
        elif target == "AWSCognitoIdentityService.GetCredentialsForIdentity":
            COUNTS["credentials"] = COUNTS.get("credentials", 0) + 1
            identity = body.get("IdentityId", "")
            if identity.startswith("us-east-1:user-") and not body.get("Logins"):
                answer(400, {"__type": "NotAuthorizedException", "message": "Logins needed for an authenticated identity"})
            else:
                answer(200, {"IdentityId": identity, "Credentials": {
                    "AccessKeyId": "ASIA" + identity[-8:].upper(), "SecretKey": "secret-" + identity,
                    "SessionToken": "token-" + identity, "Expiration": time.time() + 3600}})
        elif target == "Test.Count":
            answer(200, {"count": COUNTS.get(body.get("of", ""), 0)})
        else:
            answer(400, {"__type": "UnknownOperationException", "message": target})

    # The keys the API Gateway stand-in accepts: access key id -> secret access key.
    EXECUTE_API_KEYS = {"AKIDEXECUTEAPI": "execute-api-secret"}

    def handle_execute_api(self, url):
        """An API Gateway stand-in for IAM-authorized REST APIs (stage URL /execute-api/<stage>):
        recomputes the SigV4 signature (service execute-api, region us-east-1) over the request as
        received, with the standard library (an implementation of its own, not the client's), and
        answers 403 as API Gateway does when it differs; otherwise the /echo description, with
        "signedHeaders". A path ending in /status/<code> answers that status after the check."""
        raw_path = self.path.split("?", 1)[0]
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        def deny(message, error_type="InvalidSignatureException"):
            payload = json.dumps({"message": message}).encode()
            self.send_response(403)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("x-amzn-ErrorType", error_type)
            self.end_headers()
            self.wfile.write(payload)
        authorization = self.headers.get("Authorization", "")
        parts = dict(item.strip().split("=", 1) for item in authorization[len("AWS4-HMAC-SHA256 "):].split(",") if "=" in item) \
            if authorization.startswith("AWS4-HMAC-SHA256 ") else {}
        if not parts:
            deny("Missing Authentication Token", "MissingAuthenticationTokenException")
            return
        scope = parts.get("Credential", "").split("/")
        secret = self.EXECUTE_API_KEYS.get(scope[0]) if len(scope) == 5 else None
        if secret is None:
            deny("The security token included in the request is invalid.", "UnrecognizedClientException")
            return
        if scope[3] != "execute-api" or scope[2] != "us-east-1":
            deny("Credential should be scoped to correct service: 'execute-api'.")
            return
        signed = parts.get("SignedHeaders", "").split(";")
        if "host" not in signed:
            deny("'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.")
            return
        segments = []
        for segment in raw_path.split("/"):
            if segment in ("", "."):
                continue
            if segment == "..":
                segments = segments[:-1]
                continue
            segments.append(segment)
        normalized = "/" + "/".join(segments) + ("/" if raw_path.endswith("/") and segments else "")
        canonical_uri = quote(normalized, safe="/~")
        pairs = sorted((quote(unquote(k), safe="-_.~"), quote(unquote(v), safe="-_.~"))
                       for k, v in parse_qsl(url.query, keep_blank_values=True))
        canonical_query = "&".join(f"{k}={v}" for k, v in pairs)
        lowered = {}
        for name, value in self.headers.items():
            lowered.setdefault(name.lower(), []).append(" ".join(value.split()))
        canonical_headers = "".join(f"{name}:{','.join(lowered.get(name, []))}\n" for name in signed)
        canonical = "\n".join([self.command, canonical_uri, canonical_query, canonical_headers, ";".join(signed),
                               hashlib.sha256(body).hexdigest()])
        amz_date = self.headers.get("X-Amz-Date", "")
        string_to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, "/".join(scope[1:]), hashlib.sha256(canonical.encode()).hexdigest()])
        key = ("AWS4" + secret).encode()
        for part in scope[1:]:
            key = hmac.new(key, part.encode(), hashlib.sha256).digest()
        expected = hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, parts.get("Signature", "")):
            deny("The request signature we calculated does not match the signature you provided. Check your AWS "
                 "Secret Access Key and signing method. Consult the service documentation for details.")
            return
        status = int(raw_path.rsplit("/", 1)[1]) if "/status/" in raw_path else 200
        answer = json.dumps({
            "method": self.command, "path": raw_path, "query": url.query,
            "headers": {k.lower(): v for k, v in self.headers.items()}, "signedHeaders": signed,
            "body": body.decode("utf-8", "replace"),
        }).encode()
        self.reply(status, answer, "application/json")

    def handle_stored(self, name):
        """PUT stores the body under name; GET serves it (counting GETs); GET name?count says how many."""
        if self.command == "PUT":
            STORED[name] = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.reply(204, b"")
        elif name.endswith(".count"):
            self.reply(200, json.dumps({"count": COUNTS.get("stored:" + name[:-6], 0)}).encode(), "application/json")
        elif name in STORED:
            COUNTS["stored:" + name] = COUNTS.get("stored:" + name, 0) + 1
            self.reply(200, STORED[name], "application/json")
        else:
            self.reply(404, b"not stored", "text/plain")

    def handle_oauth(self, path, query):
        """A hosted UI stand-in: /oauth2/authorize checks the PKCE request and redirects with a code
        (or, per the "hosted-ui-mode" stored document, with error=access_denied, with an
        error_description full of terminal escapes ("deny-escape"), or with a forged state);
        /oauth2/token exchanges the code only for the verifier whose S256 is the challenge."""
        mode = STORED.get("hosted-ui-mode", b"").decode()
        if path == "/oauth2/authorize":
            one = lambda name: query.get(name, [""])[0]
            if one("response_type") != "code" or one("code_challenge_method") != "S256" or not one("code_challenge"):
                self.reply(400, b"PKCE code flow required", "text/plain")
                return
            code = "code-%d" % (len(CODES) + 1)
            CODES[code] = {"challenge": one("code_challenge"), "redirect_uri": one("redirect_uri"), "client_id": one("client_id")}
            if mode == "deny":
                location = one("redirect_uri") + "?error=access_denied&error_description=User+cancelled&state=" + one("state")
            elif mode == "deny-escape":
                # A description that would clear the screen and retitle the terminal if printed raw.
                location = one("redirect_uri") + "?error=access_denied&error_description=%1B%5B2J%1B%5D0%3Bpwned%07%C2%9B31m+bye&state=" + one("state")
            elif mode == "forge-state":
                location = one("redirect_uri") + "?code=" + code + "&state=forged"
            else:
                location = one("redirect_uri") + "?code=" + code + "&state=" + one("state")
            self.send_response(302)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        form = {k: v[0] for k, v in parse_qs(raw).items()}
        grant = CODES.pop(form.get("code", ""), None)
        def token(claims):
            encode = lambda value: base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")
            return encode({"alg": "RS256", "kid": "hosted"}) + "." + encode(claims) + ".c2ln"
        if (self.headers.get("Content-Type") != "application/x-www-form-urlencoded" or grant is None
                or form.get("grant_type") != "authorization_code" or form.get("client_id") != grant["client_id"]
                or form.get("redirect_uri") != grant["redirect_uri"]):
            self.reply(400, json.dumps({"error": "invalid_grant"}).encode(), "application/json")
            return
        digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
        if base64.urlsafe_b64encode(digest).decode().rstrip("=") != grant["challenge"]:
            self.reply(400, json.dumps({"error": "invalid_grant", "error_description": "PKCE verification failed"}).encode(), "application/json")
            return
        expiry = int(time.time()) + 3600
        body = {"id_token": token({"sub": "hosted-sub", "cognito:username": "carol", "token_use": "id", "aud": grant["client_id"], "exp": expiry}),
                "access_token": token({"sub": "hosted-sub", "username": "carol", "token_use": "access", "client_id": grant["client_id"], "exp": expiry}),
                "refresh_token": "hosted-refresh", "expires_in": 3600, "token_type": "Bearer"}
        self.reply(200, json.dumps(body).encode(), "application/json")

    def handle_replay(self):
        """Recorded AWS JSON exchanges: the fixture list stored as "fixtures" (PUT /stored/fixtures)
        is answered in order. Each request must name the fixture's target and carry every field of
        its "request" (a subset match); a mismatch answers 400 MismatchException saying what differed.
        GET /stored/replay-log lists each call's target and whether it matched."""
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        fixtures = json.loads(STORED.get("fixtures", b"[]"))
        index = COUNTS.get("replay", 0)
        COUNTS["replay"] = index + 1
        def answer(status, value):
            # GET /stored/replay-log: each call's target and whether it matched its recording.
            with LOCK:
                log = json.loads(STORED.get("replay-log", b"[]"))
                log.append({"target": self.headers.get("X-Amz-Target", ""), "matched": value.get("__type") != "MismatchException"})
                STORED["replay-log"] = json.dumps(log).encode()
            self.reply(status, json.dumps(value).encode(), "application/x-amz-json-1.1")
        if index >= len(fixtures):
            answer(400, {"__type": "MismatchException", "message": "no fixture left for call %d" % (index + 1)})
            return
        fixture = fixtures[index]
        target = self.headers.get("X-Amz-Target", "")
        if target != fixture["target"]:
            answer(400, {"__type": "MismatchException", "message": "expected %s, got %s" % (fixture["target"], target)})
            return
        for key, value in fixture.get("request", {}).items():
            if body.get(key) != value:
                answer(400, {"__type": "MismatchException", "message": "%s: expected %r, got %r" % (key, value, body.get(key))})
                return
        answer(fixture.get("status", 200), fixture.get("response", {}))

    def handle_rest(self, path, query):
        """An S3-like REST-XML stand-in: /rest/flaky answers 503 SlowDown twice per key, then the
        object; /rest/denied answers 403 AccessDenied; /rest/count tells how often a key was asked."""
        self.read_body()
        key = query.get("key", [""])[0]
        def error(status, code, message):
            body = f"<?xml version=\"1.0\"?><Error><Code>{code}</Code><Message>{message}</Message></Error>"
            self.reply(status, body.encode(), "application/xml")
        if path == "/rest/count":
            self.reply(200, json.dumps({"count": COUNTS.get(key, 0)}).encode(), "application/json")
            return
        COUNTS[key] = COUNTS.get(key, 0) + 1
        if path == "/rest/flaky" and COUNTS[key] <= 2:
            error(503, "SlowDown", "Please reduce your request rate.")
        elif path == "/rest/flaky":
            self.reply(200, b"object body after %d attempts" % COUNTS[key], "text/plain")
        elif path == "/rest/denied":
            error(403, "AccessDenied", "Access Denied")
        else:
            error(404, "NoSuchKey", "The specified key does not exist.")

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = handle_any

    def do_HEAD(self):
        self.reply(200, b"")


def blackhole_port():
    """A port on 127.0.0.1 whose listener never accepts and whose accept queue is full, so a new
    connection's handshake never completes (a connect timeout's test)."""
    with LOCK:
        if not BLACKHOLE:
            listener = socket.socket()
            listener.bind(("127.0.0.1", 0))
            listener.listen(0)
            BLACKHOLE.append(listener)
            for _ in range(3):
                filler = socket.socket()
                filler.setblocking(False)
                try:
                    filler.connect(listener.getsockname())
                except BlockingIOError:
                    pass
                BLACKHOLE.append(filler)
            time.sleep(0.1)
        return BLACKHOLE[0].getsockname()[1]


CUT = {"after": None}
LOG = []
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection", "content-length"}


class ProxyHandler(BaseHTTPRequestHandler):
    """Forwards to 127.0.0.1:TARGET unchanged; /__control/cut?after=N cuts the next good GET."""
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    target = 0

    def log_message(self, *args):
        pass

    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def forward(self):
        url = urlparse(self.path)
        if url.path == "/__control/cut":
            with LOCK:
                CUT["after"] = int(parse_qs(url.query).get("after", ["1000"])[0])
            self.answer(200, b"{}")
            return
        if url.path == "/__control/log":
            with LOCK:
                body = json.dumps(LOG).encode()
            self.answer(200, body)
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        upstream = http.client.HTTPConnection("127.0.0.1", self.target, timeout=60)
        headers = {name: value for name, value in self.headers.items() if name.lower() not in HOP_BY_HOP}
        if body or self.command in ("PUT", "POST"):
            headers["Content-Length"] = str(len(body))
        upstream.request(self.command, self.path, body=body if body else None, headers=headers)
        response = upstream.getresponse()
        payload = response.read()
        upstream.close()
        with LOCK:
            LOG.append({"method": self.command, "path": url.path, "range": self.headers.get("Range"),
                        "ifMatch": self.headers.get("If-Match"), "status": response.status})
            cut = CUT["after"] if self.command == "GET" and response.status in (200, 206) else None
            if cut is not None:
                CUT["after"] = None
        self.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() not in HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command == "HEAD":
            return
        if cut is not None:
            self.wfile.write(payload[:cut])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = forward


# A parent that spawned us from a thread with signals blocked passes that mask on; take SIGTERM
# back so the tests can stop the server by its PID.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
class Server(ThreadingHTTPServer):
    # Room for the 100-connection test in the listen queue (the default is 5).
    request_queue_size = 256
    daemon_threads = True


if "--proxy-to" in sys.argv:
    ProxyHandler.target = int(sys.argv[sys.argv.index("--proxy-to") + 1])
    server = Server(("127.0.0.1", 0), ProxyHandler)
else:
    server = Server(("127.0.0.1", 0), Handler)
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
