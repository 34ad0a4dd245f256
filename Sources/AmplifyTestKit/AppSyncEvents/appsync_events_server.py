"""The tests' AWS AppSync Events stand-in: one asyncio server on 127.0.0.1 that answers the Event
API's HTTP publish (POST /event) and its real-time WebSocket protocol (subprotocol
aws-appsync-event-ws, on /event/realtime) as AppSync Events does on the wire, with every request,
connection, subscribe and publish authorized for real. It prints "READY <port>" once listening and
serves until SIGTERM (or, with --exit-with-stdin, until standard input closes).

  appsync_events_server.py --port P [--host 127.0.0.1] [--region us-east-1]
      [--api-key KEY ...]                                    API_KEY: x-api-key compared
      [--iam-access-key AK --iam-secret-key SK [--iam-session-token T] ...]
                                                             AWS_IAM: SigV4 (service appsync) recomputed
                                                             with botocore over the request as received
      [--user-pool-token T ...] [--oidc-token T ...] [--lambda-token T ...]
                                                             AMAZON_COGNITO_USER_POOLS / OPENID_CONNECT /
                                                             AWS_LAMBDA: Authorization compared as a string
      [--namespace NAME ...] (default)                       the channel namespaces that exist
      [--ka-interval SECONDS] (60)  [--connection-timeout-ms MS] (300000)
      [--exit-with-stdin]  [--verbose]

Channels: "/<namespace>/<segment>..." (the leading "/" may be left out), at most 5 segments in all
(the namespace counts), each 1-50 of [A-Za-z0-9-], the namespace one of --namespace. Publishing
takes no wildcard; a subscription may end in the segment "*" (/ns/* or /ns/a/*), which matches every
channel below that prefix, at any depth (not the prefix itself). Events: JSON strings holding valid
JSON, each at most 240 KB (245,760 UTF-8 bytes), 1 to 5 a publish.

Auth headers (HTTP headers, or the JSON object of a WebSocket "header-" subprotocol or a message's
"authorization"): a SigV4 "Authorization" (AWS4-HMAC-SHA256 ...) is IAM; another "Authorization" is
a user-pool, OIDC or Lambda token when it equals one given; otherwise "x-api-key".

HTTP:
  POST /event   {"channel": "/ns/a", "events": ["<JSON>", ...]} -> 200 {"failed":[],"successful":
                [{"identifier":"<uuid>","index":0},...]}; the events go to every matching WebSocket
                subscription. A bad body, event, or channel -> 400 {"errors":[{"errorType":
                "BadRequestException","message":...}]}; bad auth -> 401 {"errors":[{"errorType":
                "UnauthorizedException","message":...}]} (with x-amzn-ErrorType). IAM signs this request.
  GET  /health  200 {"status":"ok"}
Control (never authorized):
  GET  /control/state                 {"connections","subscriptions","published","delivered","kaStopped"}
  POST /control/reset                 zeroes the counts, resumes keep-alives, forgets pending truncations
  POST /control/drop                  closes every WebSocket abruptly (TCP closed, no close frame)
  POST /control/close?code=N&reason=R sends every WebSocket a close frame (default 1000)
  POST /control/stop-ka, /control/start-ka   stops / resumes "ka" on every connection
  POST /control/truncate              the next data message to each open connection is written as
                                      half a frame, then the TCP connection is closed
  POST /control/burst?channel=C&count=N[&size=BYTES]
                                      N data messages at once to every subscription matching channel C,
                                      event i being {"seq": i, "sentNs": <wall-clock ns the burst
                                      began>, "pad": "x" * BYTES}; all are framed, then written at
                                      once, so the rate is the reader's (benchmarks)
  POST /control/iam-credentials       body {"accessKeyId", "secretAccessKey", "sessionToken"?}: adds a key

Real-time (AWS's "Understanding the Event API WebSocket protocol"): GET /event/realtime offering
the subprotocols aws-appsync-event-ws (selected) and header-<base64url JSON of the auth headers, no
padding> (IAM: the headers of a signed POST https://<host>/event with body {}). Bad connection auth:
{"type":"connection_error","errors":[{"errorType":"UnauthorizedException","message":...}]} and a
close (1000) a second later.
  connection_init                          -> {"type":"connection_ack","connectionTimeoutMs":N}, then
                                              {"type":"ka"} at once and every --ka-interval
  subscribe {id, channel, authorization}   -> subscribe_success {id} | subscribe_error {id, errors}
  publish {id, channel, events, authorization}
                                           -> publish_success {id, successful, failed: []} |
                                              publish_error {id, errors}; the publisher's own
                                              subscriptions receive the events too
  unsubscribe {id}                         -> unsubscribe_success {id} | unsubscribe_error {id, errors}
  each event delivered                     -> data {id: <subscription id>, event: "<JSON>"}
  invalid JSON, an unknown type, a message over 1 MB -> error {errors}
A message's authorization is checked like the connection's; for IAM the signed body may be {},
{"channel":C} or {"channel":C,"events":[...]} (what Amplify JS signs), compact JSON.
"""
import argparse
import asyncio
import base64
import datetime
import email.utils
import hashlib
import hmac
import http
import ipaddress
import json
import os
import re
import signal
import struct
import sys
import threading
import time
import uuid
from urllib.parse import parse_qsl

# A parent that spawned us from a thread with signals blocked passes that mask on; take them back
# so the tests can stop the server by its PID.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

from websockets.frames import Opcode  # noqa: E402
from websockets.protocol import State  # noqa: E402
from websockets.server import ServerProtocol  # noqa: E402

API_KEY, COGNITO, IAM, OIDC, LAMBDA = (
    "API_KEY", "AMAZON_COGNITO_USER_POOLS", "AWS_IAM", "OPENID_CONNECT", "AWS_LAMBDA")
SUBPROTOCOL = "aws-appsync-event-ws"
NOT_AUTHORIZED = "You are not authorized to make this call."
COMPACT = (",", ":")
MAX_EVENTS = 5
MAX_EVENT_BYTES = 240 * 1024
MAX_SEGMENTS = 5
MAX_MESSAGE_BYTES = 1 << 20
SEGMENT = re.compile(r"^[A-Za-z0-9-]{1,50}$")


def log(*parts):
    if CONFIG.verbose:
        print(*parts, file=sys.stderr, flush=True)


def request_id():
    return str(uuid.uuid4())


def dumps(value):
    return json.dumps(value, separators=COMPACT)


# --- Errors and checks ---------------------------------------------------------------------------

class AuthError(Exception):
    def __init__(self, message):
        super().__init__(message)
        self.message = message


class BadRequest(Exception):
    def __init__(self, message):
        super().__init__(message)
        self.message = message


def parse_channel(channel, subscribing):
    """The channel's segments (the namespace first), or BadRequest saying what is wrong."""
    if not isinstance(channel, str) or not channel:
        raise BadRequest("A channel is required: a string such as /default/channel.")
    segments = (channel[1:] if channel.startswith("/") else channel).split("/")
    if len(segments) > MAX_SEGMENTS:
        raise BadRequest(f"Invalid channel '{channel}': a channel has at most {MAX_SEGMENTS} segments, "
                         f"this one has {len(segments)}.")
    for index, segment in enumerate(segments):
        if segment == "*":
            if not subscribing:
                raise BadRequest(f"Invalid channel '{channel}': wildcards are not allowed when publishing.")
            if index != len(segments) - 1 or index == 0:
                raise BadRequest(f"Invalid channel '{channel}': a wildcard '*' may only be the last segment, "
                                 "after the namespace.")
        elif not SEGMENT.match(segment):
            raise BadRequest(f"Invalid channel '{channel}': segment '{segment}' must be 1-50 characters of "
                             "[A-Za-z0-9-].")
    if segments[0] not in CONFIG.namespace:
        raise BadRequest(f"Invalid channel '{channel}': namespace '{segments[0]}' does not exist.")
    return segments


def check_events(events):
    """The events as given, or BadRequest saying which one is wrong and how."""
    if not isinstance(events, list) or not events:
        raise BadRequest("events must be a non-empty array of strings holding JSON.")
    if len(events) > MAX_EVENTS:
        raise BadRequest(f"Too many events: at most {MAX_EVENTS} can be published at once, got {len(events)}.")
    for index, event in enumerate(events):
        if not isinstance(event, str):
            raise BadRequest(f"Event {index} is not a string: each event must be a JSON value serialized "
                             "as a string.")
        size = len(event.encode("utf-8", "surrogatepass"))
        if size > MAX_EVENT_BYTES:
            raise BadRequest(f"Event {index} is {size} bytes, over the maximum event size of "
                             f"{MAX_EVENT_BYTES} bytes (240 KB).")
        try:
            json.loads(event)
        except ValueError:
            raise BadRequest(f"Event {index} is not valid JSON.")
    return events


# --- Authorization -------------------------------------------------------------------------------

_SIGV4 = re.compile(r"^AWS4-HMAC-SHA256\s+Credential=([^,\s]+)\s*,\s*SignedHeaders=([^,\s]+)\s*,\s*Signature=([0-9a-fA-F]+)\s*$")


def verify_sigv4(headers, method, target, bodies, check_payload_hash=True):
    """Recomputes the signature with botocore over the request as received (only the headers it
    says it signed), for each body in `bodies` until one matches."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.compat import HTTPHeaders
    from botocore.credentials import Credentials

    match = _SIGV4.match(headers.get("authorization", ""))
    if not match:
        raise AuthError("Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' "
                        f"parameters. Authorization={headers.get('authorization', '')}")
    scope = match[1].split("/")
    if len(scope) != 5 or scope[4] != "aws4_request":
        raise AuthError(f"Credential should be scoped correctly: '{match[1]}'.")
    access_key, day, region, service, _ = scope
    if access_key not in IAM_KEYS:
        raise AuthError("The security token included in the request is invalid.")
    secret, token = IAM_KEYS[access_key]
    if service != "appsync":
        raise AuthError("Credential should be scoped to correct service: 'appsync'.")
    if region != CONFIG.region:
        raise AuthError(f"Credential should be scoped to a valid region, not '{region}'.")
    amz_date = headers.get("x-amz-date", "")
    try:
        signed_at = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        raise AuthError("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
    if amz_date[:8] != day:
        raise AuthError(f"Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from "
                        f"HTTP: '{day}' != '{amz_date[:8]}', from '{amz_date}'.")
    now = datetime.datetime.now(datetime.timezone.utc)
    skew = datetime.timedelta(minutes=15)
    if not now - skew <= signed_at <= now + skew:
        raise AuthError(f"Signature expired or not yet current: {amz_date} is more than 15 min. from "
                        f"{now.strftime('%Y%m%dT%H%M%SZ')}.")
    signed = match[2].lower().split(";")
    if "host" not in signed:
        raise AuthError("'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.")
    if token is not None and headers.get("x-amz-security-token") != token:
        raise AuthError("The security token included in the request is invalid.")
    sha = headers.get("x-amz-content-sha256")
    if check_payload_hash and sha is not None and all(sha != hashlib.sha256(body).hexdigest() for body in bodies):
        raise AuthError("The provided 'x-amz-content-sha256' header does not match what was computed.")

    class Recomputed(SigV4Auth):
        def headers_to_sign(self, request):
            chosen = HTTPHeaders()
            for name in signed:
                if name in headers:
                    chosen[name] = headers[name]
            return chosen

    values = {name: headers[name] for name in signed if name in headers}
    signer = Recomputed(Credentials(access_key, secret, token), "appsync", CONFIG.region)
    first = None
    for body in bodies:
        request = AWSRequest(method=method, url="https://" + headers.get("host", "localhost") + target,
                             headers=values, data=body)
        request.context["timestamp"] = amz_date
        canonical = signer.canonical_request(request)
        to_sign = signer.string_to_sign(request, canonical)
        if hmac.compare_digest(signer.signature(to_sign, request), match[3].lower()):
            return IAM
        if first is None:
            first = (canonical, to_sign)
    raise AuthError("The request signature we calculated does not match the signature you provided. Check "
                    "your AWS Secret Access Key and signing method. Consult the service documentation for "
                    f"details.\n\nThe Canonical String for this request should have been\n'{first[0]}'"
                    f"\n\nThe String-to-Sign should have been\n'{first[1]}'\n")


def authenticate(headers, method, target, bodies, check_payload_hash=True):
    """headers: lower-case names to values. Picks the mode from the Authorization header's form,
    else x-api-key, and checks it; returns the mode or raises AuthError."""
    authorization = headers.get("authorization")
    if authorization is not None:
        if authorization.startswith("AWS4-HMAC-SHA256"):
            if not IAM_KEYS:
                raise AuthError(NOT_AUTHORIZED)
            return verify_sigv4(headers, method, target, bodies, check_payload_hash)
        if not authorization.strip():
            raise AuthError("Valid authorization header not provided.")
        for mode, tokens in ((COGNITO, CONFIG.user_pool_token), (OIDC, CONFIG.oidc_token),
                             (LAMBDA, CONFIG.lambda_token)):
            if authorization in tokens:
                return mode
        raise AuthError(NOT_AUTHORIZED)
    key = headers.get("x-api-key")
    if key is not None:
        if key in CONFIG.api_key:
            return API_KEY
        raise AuthError(NOT_AUTHORIZED)
    raise AuthError("Missing authorization header")


def message_auth(message, bodies):
    """Checks a subscribe or publish message's `authorization` (IAM: a signed POST /event)."""
    authorization = message.get("authorization")
    if not isinstance(authorization, dict) or not authorization:
        raise AuthError("Missing authorization: a subscribe or publish message carries its auth headers.")
    headers = {str(k).lower(): str(v) for k, v in authorization.items()}
    return authenticate(headers, "POST", "/event", bodies, check_payload_hash=False)


# --- Channels, subscriptions, delivery -----------------------------------------------------------

STATE = {"kaStopped": False, "published": 0, "delivered": 0}
CONNECTIONS = set()
PATTERNS = {}  # "/ns/a" or "/ns/a/*" -> {(id(connection), subscription id): Subscription}


def frame_text(payload):
    """An unmasked, unfragmented text frame (the server writes its messages this way: fast, and
    never compressed: no extension is negotiated)."""
    size = len(payload)
    if size < 126:
        header = bytes((0x81, size))
    elif size < 65536:
        header = struct.pack("!BBH", 0x81, 126, size)
    else:
        header = struct.pack("!BBQ", 0x81, 127, size)
    return header + payload


class Subscription:
    __slots__ = ("id", "connection", "pattern", "prefix")

    def __init__(self, sid, connection, pattern):
        self.id, self.connection, self.pattern = sid, connection, pattern
        # Every data message to it is this prefix, the event as a JSON string, and "}".
        self.prefix = b'{"type":"data","id":' + dumps(sid).encode() + b',"event":'


class Connection:
    def __init__(self, writer, protocol):
        self.writer, self.protocol = writer, protocol
        self.subscriptions, self.ka_task, self.closed = {}, None, False
        self.out = []
        self.truncate_next = False

    @property
    def open(self):
        return not self.closed and self.protocol.state is State.OPEN and not self.writer.is_closing()

    def queue(self, payload):
        """Frames one text message (bytes) to be written at the next flush; False if not open."""
        if not self.open:
            return False
        if self.truncate_next:
            self.truncate_next = False
            framed = frame_text(payload)
            self.out.append(framed[:max(1, len(framed) // 2)])
            self.flush()
            self.closed = True
            log("ws truncated a frame and closed the connection")
            self.writer.close()  # the half frame goes out, then FIN: no close frame
            return False
        self.out.append(frame_text(payload))
        return True

    def send(self, message):
        if self.queue(dumps(message).encode()):
            log("ws >", message)
            self.flush()

    def flush(self):
        if self.writer.is_closing():
            self.out.clear()
            self.protocol.data_to_send()
            return
        chunks, self.out = self.out, []
        eof = False
        for data in self.protocol.data_to_send():
            if data:
                chunks.append(data)
            else:
                eof = True
        if chunks:
            self.writer.write(b"".join(chunks))
        if eof:
            if self.writer.can_write_eof():
                self.writer.write_eof()
            else:
                self.writer.close()

    def error(self, errors, kind="error", sid=None):
        message = {"type": kind}
        if sid is not None:
            message["id"] = sid
        message["errors"] = errors
        self.send(message)

    def drop_subscription(self, sid):
        subscription = self.subscriptions.pop(sid, None)
        if subscription is None:
            return False
        members = PATTERNS.get(subscription.pattern)
        if members is not None:
            members.pop((id(self), sid), None)
            if not members:
                del PATTERNS[subscription.pattern]
        return True

    def cleanup(self):
        self.closed = True
        for sid in list(self.subscriptions):
            self.drop_subscription(sid)
        if self.ka_task:
            self.ka_task.cancel()
        CONNECTIONS.discard(self)


def matching(segments):
    """The subscriptions a publish to the channel `segments` reaches: the exact channel's, and
    each wildcard's whose prefix it is below."""
    found = []
    exact = PATTERNS.get("/" + "/".join(segments))
    if exact:
        found.extend(exact.values())
    for depth in range(1, len(segments)):
        members = PATTERNS.get("/" + "/".join(segments[:depth]) + "/*")
        if members:
            found.extend(members.values())
    return found


def deliver(segments, events):
    """Sends each event to every matching subscription, one data message per event, in order."""
    STATE["published"] += len(events)
    targets = matching(segments)
    if not targets:
        return 0
    encoded = [dumps(event).encode() for event in events]
    touched = {}
    count = 0
    for subscription in targets:
        connection = subscription.connection
        for body in encoded:
            if not connection.queue(subscription.prefix + body + b"}"):
                break
            count += 1
        touched[id(connection)] = connection
    for connection in touched.values():
        connection.flush()
    STATE["delivered"] += count
    if CONFIG.verbose:
        log("delivered", len(events), "event(s) on", "/" + "/".join(segments), "to", len(targets), "subscription(s)")
    return count


def accepted(events):
    return {"failed": [], "successful": [{"identifier": str(uuid.uuid4()), "index": i} for i in range(len(events))]}


# --- WebSocket connections -----------------------------------------------------------------------

async def keep_alive(connection):
    while not connection.closed:
        if not STATE["kaStopped"]:
            connection.send({"type": "ka"})
        await asyncio.sleep(CONFIG.ka_interval)


def decode_header_json(text):
    text = text.strip()
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    value = json.loads(raw)
    if not isinstance(value, dict):
        raise ValueError("the header is not a JSON object")
    return {str(k).lower(): str(v) for k, v in value.items()}


def handle_message(connection, text, size):
    if size > MAX_MESSAGE_BYTES:
        connection.error([{"errorType": "BadRequestException",
                           "message": f"The message is {size} bytes, over the limit of {MAX_MESSAGE_BYTES}."}])
        return
    try:
        message = json.loads(text)
    except ValueError:
        connection.error([{"errorType": "BadRequestException", "message": "The message is not valid JSON."}])
        return
    if CONFIG.verbose:
        log("ws <", text[:500])
    kind = message.get("type") if isinstance(message, dict) else None
    if kind == "connection_init":
        connection.send({"type": "connection_ack", "connectionTimeoutMs": CONFIG.connection_timeout_ms})
        if connection.ka_task is None:
            connection.ka_task = asyncio.ensure_future(keep_alive(connection))
    elif kind == "subscribe":
        handle_subscribe(connection, message)
    elif kind == "publish":
        handle_publish(connection, message)
    elif kind == "unsubscribe":
        sid = message.get("id")
        if connection.drop_subscription(sid):
            connection.send({"type": "unsubscribe_success", "id": sid})
        else:
            connection.error([{"errorType": "UnknownOperationError", "message": f"Unknown subscription id {sid}"}],
                             "unsubscribe_error", sid)
    else:
        connection.error([{"errorType": "UnsupportedOperation",
                           "message": f"Message type {json.dumps(kind)} is not supported."}])


def handle_subscribe(connection, message):
    sid = message.get("id")
    if not isinstance(sid, str) or not sid:
        connection.error([{"errorType": "BadRequestException", "message": "A subscribe message needs a string id."}],
                         "subscribe_error", sid)
        return
    channel = message.get("channel")
    try:
        message_auth(message, [b"{}", dumps({"channel": channel}).encode()])
        segments = parse_channel(channel, subscribing=True)
    except AuthError as error:
        connection.error([{"errorType": "UnauthorizedException", "message": error.message}], "subscribe_error", sid)
        return
    except BadRequest as error:
        connection.error([{"errorType": "BadRequestException", "message": error.message}], "subscribe_error", sid)
        return
    if sid in connection.subscriptions:
        connection.error([{"errorType": "DuplicatedOperationError", "message": f"Duplicated operation with id {sid}"}],
                         "subscribe_error", sid)
        return
    pattern = "/" + "/".join(segments)
    subscription = Subscription(sid, connection, pattern)
    connection.subscriptions[sid] = subscription
    PATTERNS.setdefault(pattern, {})[(id(connection), sid)] = subscription
    connection.send({"type": "subscribe_success", "id": sid})


def handle_publish(connection, message):
    sid = message.get("id")
    channel, events = message.get("channel"), message.get("events")
    signed = {"channel": channel, "events": events} if events is not None else {"channel": channel}
    try:
        message_auth(message, [b"{}", dumps(signed).encode(), json.dumps(signed, separators=COMPACT,
                                                                        ensure_ascii=False).encode()])
        segments = parse_channel(channel, subscribing=False)
        check_events(events)
    except AuthError as error:
        connection.error([{"errorType": "UnauthorizedException", "message": error.message}], "publish_error", sid)
        return
    except BadRequest as error:
        connection.error([{"errorType": "BadRequestException", "message": error.message}], "publish_error", sid)
        return
    connection.send({"type": "publish_success", "id": sid, **accepted(events)})
    deliver(segments, events)


async def websocket_session(reader, writer, head, target, headers):
    offered = [p.strip() for value in headers.get("sec-websocket-protocol", []) for p in value.split(",")]
    protocol = ServerProtocol(select_subprotocol=lambda _p, offered: SUBPROTOCOL if SUBPROTOCOL in offered else None,
                              max_size=4 * MAX_MESSAGE_BYTES)
    protocol.receive_data(head)
    request = protocol.events_received()[0]
    path = target.partition("?")[0].rstrip("/")
    if path != "/event/realtime":
        response = protocol.reject(404, "Not Found\n")
    elif SUBPROTOCOL not in offered:
        response = protocol.reject(400, f"The {SUBPROTOCOL} subprotocol is required.\n")
    else:
        response = protocol.accept(request)
    connection = Connection(writer, protocol)
    protocol.send_response(response)
    connection.flush()
    if response.status_code != 101:
        await writer.drain()
        return
    CONNECTIONS.add(connection)
    try:
        refused = None
        try:
            encoded = next((p[len("header-"):] for p in offered if p.startswith("header-")), None)
            if encoded is None:
                raise AuthError("Missing authorization: offer a header-<base64url JSON> subprotocol.")
            authenticate(decode_header_json(encoded), "POST", "/event", [b"{}"])
        except (ValueError, UnicodeDecodeError):
            refused = "The connection header could not be decoded."
        except AuthError as error:
            refused = error.message
        if refused is not None:
            log("ws connection refused:", refused)
            connection.error([{"errorType": "UnauthorizedException", "message": refused}], "connection_error")

            def close():
                if protocol.state is State.OPEN and not connection.closed:
                    protocol.send_close(1000, "")
                    connection.flush()
            # A second's grace, so that a connection_init already on its way is still read.
            asyncio.get_running_loop().call_later(1.0, close)
        fragments = []
        while True:
            data = await reader.read(65536)
            if data:
                protocol.receive_data(data)
            else:
                protocol.receive_eof()
            for event in protocol.events_received():
                if getattr(event, "opcode", None) in (Opcode.TEXT, Opcode.CONT, Opcode.BINARY):
                    fragments.append(event.data)
                    if event.fin:
                        raw = b"".join(fragments)
                        text = raw.decode("utf-8", "replace")
                        fragments = []
                        if refused is None and connection.open:
                            try:
                                handle_message(connection, text, len(raw))
                            except Exception as error:  # a bug here must not kill the connection silently
                                print(f"appsync_events_server: {type(error).__name__}: {error}", file=sys.stderr,
                                      flush=True)
                                connection.error([{"errorType": "InternalFailure", "message": str(error)}])
            connection.flush()
            if not data or protocol.state is State.CLOSED or connection.closed:
                break
    finally:
        connection.cleanup()
        if not writer.is_closing():
            writer.close()


# --- HTTP ----------------------------------------------------------------------------------------

def render(status, body, keep_alive, extra=None):
    headers = [("Date", email.utils.formatdate(usegmt=True)), ("Content-Type", "application/json; charset=UTF-8"),
               ("Content-Length", str(len(body))), ("Connection", "keep-alive" if keep_alive else "close"),
               ("x-amzn-RequestId", request_id())] + list(extra or [])
    lines = [f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}"] + [f"{k}: {v}" for k, v in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def error_answer(status, error_type, message):
    body = dumps({"errors": [{"errorType": error_type, "message": message}]}).encode()
    return status, body, [("x-amzn-ErrorType", error_type)]


def json_answer(value, status=200):
    return status, dumps(value).encode(), []


def burst(query):
    try:
        segments = parse_channel(query.get("channel", ""), subscribing=False)
    except BadRequest as error:
        return error_answer(400, "BadRequestException", error.message)
    count, size = int(query.get("count", "1")), int(query.get("size", "0"))
    targets = [sub for sub in matching(segments) if sub.connection.open]
    started = time.time_ns()
    pad = "x" * size
    # Framed first, then written in one go: the server's own speed stays out of the rate.
    encoded = [dumps(dumps({"seq": index, "sentNs": started, "pad": pad})).encode() for index in range(count)]
    delivered = 0
    touched = {}
    for subscription in targets:
        connection = subscription.connection
        for body in encoded:
            if not connection.queue(subscription.prefix + body + b"}"):
                break
            delivered += 1
        touched[id(connection)] = connection
    for connection in touched.values():
        connection.flush()
    STATE["published"] += count
    STATE["delivered"] += delivered
    return json_answer({"ok": True, "subscriptions": len(targets), "delivered": delivered, "sentNs": started})


def control(method, path, query, body):
    name = path[len("/control/"):]
    if method == "GET" and name == "state":
        return json_answer({"connections": len(CONNECTIONS),
                            "subscriptions": sum(len(members) for members in PATTERNS.values()),
                            "published": STATE["published"], "delivered": STATE["delivered"],
                            "kaStopped": STATE["kaStopped"]})
    if method != "POST":
        return error_answer(405, "MethodNotAllowed", "control endpoints take POST")
    if name == "reset":
        STATE.update(kaStopped=False, published=0, delivered=0)
        for connection in CONNECTIONS:
            connection.truncate_next = False
    elif name == "drop":
        for connection in list(CONNECTIONS):
            connection.closed = True
            connection.writer.transport.abort()
    elif name == "close":
        for connection in list(CONNECTIONS):
            if connection.open:
                connection.flush()
                connection.protocol.send_close(int(query.get("code", 1000)), query.get("reason", ""))
                connection.flush()
    elif name == "stop-ka":
        STATE["kaStopped"] = True
    elif name == "start-ka":
        STATE["kaStopped"] = False
    elif name == "truncate":
        targets = [connection for connection in CONNECTIONS if connection.open]
        for connection in targets:
            connection.truncate_next = True
        return json_answer({"ok": True, "connections": len(targets)})
    elif name == "burst":
        return burst(query)
    elif name == "iam-credentials":
        spec = json.loads(body or b"{}")
        IAM_KEYS[spec["accessKeyId"]] = (spec["secretAccessKey"], spec.get("sessionToken"))
    else:
        return error_answer(404, "NotFoundException", f"no control endpoint {name}")
    return json_answer({"ok": True})


def publish_over_http(method, target, headers, body):
    if method != "POST":
        return error_answer(405, "MethodNotAllowedException", f"{method} is not supported on /event")
    flat = {name: ",".join(values) for name, values in headers.items()}
    try:
        authenticate(flat, method, target, [body])
    except AuthError as error:
        return error_answer(401, "UnauthorizedException", error.message)
    try:
        request = json.loads(body)
    except ValueError:
        return error_answer(400, "BadRequestException", "The request body is not valid JSON.")
    if not isinstance(request, dict):
        return error_answer(400, "BadRequestException", "The request body must be a JSON object with channel and events.")
    try:
        segments = parse_channel(request.get("channel"), subscribing=False)
        events = check_events(request.get("events"))
    except BadRequest as error:
        return error_answer(400, "BadRequestException", error.message)
    answer = accepted(events)
    deliver(segments, events)
    return json_answer(answer)


def route(method, target, headers, body):
    path, _, query_text = target.partition("?")
    query = dict(parse_qsl(query_text))
    if path == "/health":
        return json_answer({"status": "ok"})
    if path.startswith("/control/"):
        return control(method, path, query, body)
    if path.rstrip("/") == "/event":
        return publish_over_http(method, target, headers, body)
    return error_answer(404, "NotFoundException", "Not Found")


async def read_body(reader, headers):
    if "chunked" in ",".join(headers.get("transfer-encoding", [])).lower():
        chunks = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":
                    pass
                return b"".join(chunks)
            chunks.append(await reader.readexactly(size))
            await reader.readexactly(2)
    length = int((headers.get("content-length") or ["0"])[0])
    return await reader.readexactly(length) if length else b""


async def handle_client(reader, writer):
    try:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                break
            except asyncio.LimitOverrunError:
                writer.write(render(431, b"", False))
                break
            lines = head.decode("latin-1").split("\r\n")
            parts = lines[0].split(" ")
            if len(parts) != 3:
                writer.write(render(400, b"", False))
                break
            method, target, version = parts
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, _, value = line.partition(":")
                    headers.setdefault(name.strip().lower(), []).append(value.strip())
            if "websocket" in ",".join(headers.get("upgrade", [])).lower():
                log("ws upgrade", target)
                await websocket_session(reader, writer, head, target, headers)
                return
            if "100-continue" in ",".join(headers.get("expect", [])).lower():
                writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            body = await read_body(reader, headers)
            keep_alive = version == "HTTP/1.1" and "close" not in ",".join(headers.get("connection", [])).lower()
            try:
                status, payload, extra = route(method, target, headers, body)
            except Exception as error:  # answered, not dropped: the client sees what went wrong
                print(f"appsync_events_server: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
                status, payload, extra = error_answer(500, "InternalFailure", f"{type(error).__name__}: {error}")
            log(method, target, status)
            writer.write(render(status, payload, keep_alive, extra))
            await writer.drain()
            if not keep_alive:
                break
    except (ConnectionError, OSError, asyncio.IncompleteReadError, ValueError):
        pass
    finally:
        if not writer.is_closing():
            writer.close()


# --- Start ---------------------------------------------------------------------------------------

def parse_args():
    parser = argparse.ArgumentParser(description="A local AWS AppSync Events stand-in (HTTP publish and real-time WebSocket)")
    parser.add_argument("--port", type=int, required=True, help="0 picks a free port (printed in READY)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--region", default="us-east-1")
    parser.add_argument("--api-key", action="append", default=[])
    parser.add_argument("--iam-access-key", action="append", default=[])
    parser.add_argument("--iam-secret-key", action="append", default=[])
    parser.add_argument("--iam-session-token", action="append", default=[])
    parser.add_argument("--user-pool-token", action="append", default=[])
    parser.add_argument("--oidc-token", action="append", default=[])
    parser.add_argument("--lambda-token", action="append", default=[])
    parser.add_argument("--namespace", action="append", default=[])
    parser.add_argument("--ka-interval", type=float, default=60.0)
    parser.add_argument("--connection-timeout-ms", type=int, default=300000)
    parser.add_argument("--exit-with-stdin", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    try:
        loopback = ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        parser.error("--host must be a loopback address (127.0.0.1)")
    if len(args.iam_access_key) != len(args.iam_secret_key):
        parser.error("give each --iam-access-key its --iam-secret-key")
    args.namespace = args.namespace or ["default"]
    for name in args.namespace:
        if not SEGMENT.match(name):
            parser.error(f"--namespace {name!r}: 1-50 characters of [A-Za-z0-9-]")
    if args.ka_interval <= 0:
        parser.error("--ka-interval must be positive")
    if not (args.api_key or args.iam_access_key or args.user_pool_token or args.oidc_token or args.lambda_token):
        parser.error("configure at least one authorization mode (--api-key, --iam-access-key, --user-pool-token, "
                     "--oidc-token, --lambda-token)")
    return args


async def main():
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, info: log("asyncio:", info.get("message"), info.get("exception")))
    server = await asyncio.start_server(handle_client, CONFIG.host, CONFIG.port, limit=1 << 20)
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    if CONFIG.exit_with_stdin:
        def watch_stdin():
            # os.read, not sys.stdin: a buffered reader's lock held here would abort the interpreter's exit.
            while os.read(0, 4096):
                pass
            loop.call_soon_threadsafe(stop.set)
        threading.Thread(target=watch_stdin, daemon=True).start()
    print(f"READY {server.sockets[0].getsockname()[1]}", flush=True)
    await stop.wait()
    server.close()
    for connection in list(CONNECTIONS):
        connection.writer.transport.abort()


CONFIG = parse_args()
IAM_KEYS = {key: (secret, CONFIG.iam_session_token[i] if i < len(CONFIG.iam_session_token) else None)
            for i, (key, secret) in enumerate(zip(CONFIG.iam_access_key, CONFIG.iam_secret_key))}
if __name__ == "__main__":
    asyncio.run(main())
