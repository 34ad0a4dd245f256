"""Self-test of the AppSync Events stand-in. Run it with the test-tools venv's python (websockets
and botocore are there):

    .build/test-tools/venv/bin/python Sources/AmplifyTestKit/AppSyncEvents/test_appsync_events_server.py -v

It starts appsync_events_server.py as a subprocess on a free port, waits until it answers,
exercises it over HTTP and WebSocket (its own clients: urllib and websockets' sync client), and
stops it by PID.
"""
import base64
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
import unittest
import urllib.error
import urllib.request

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "appsync_events_server.py")
API_KEY = "da2-events"
ACCESS_KEY, SECRET_KEY, SESSION_TOKEN = "AKIDEVENTSTEST", "events-test-secret", "events-session-token"
USER_POOL_TOKEN, OIDC_TOKEN, LAMBDA_TOKEN = "user-pool-token-1", "oidc-token-1", "lambda-token-1"
KA_INTERVAL = 0.3


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(url, timeout=15):
    deadline = time.time() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                return answer.read()
        except (urllib.error.URLError, ConnectionError, OSError):
            if time.time() > deadline:
                raise
            time.sleep(0.1)


class Process:
    """A subprocess stopped by its PID."""

    def __init__(self, command, ready):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready_line, _, _ = select.select([self.process.stdout], [], [], 15)
        line = self.process.stdout.readline() if ready_line else ""
        if not line.startswith(ready):
            self.stop()
            raise RuntimeError(f"{command[1]} did not start: {line!r}")
        self.line = line

    def stop(self):
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        self.process.stdout.close()
        self.process.stdin.close()


def sign(url, body, key=ACCESS_KEY, secret=SECRET_KEY, token=SESSION_TOKEN, headers=None):
    """The headers of a SigV4-signed POST (service appsync), as Amplify signs them."""
    request = AWSRequest(method="POST", url=url, data=body, headers=headers or {
        "accept": "application/json, text/javascript", "content-encoding": "amz-1.0",
        "content-type": "application/json; charset=UTF-8", "host": url.split("/")[2]})
    SigV4Auth(Credentials(key, secret, token), "appsync", "us-east-1").add_auth(request)
    return dict(request.headers.items())


def header_subprotocol(auth):
    return "header-" + base64.urlsafe_b64encode(json.dumps(auth).encode()).decode().rstrip("=")


class AppSyncEventsServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.port = free_port()
        cls.host = f"127.0.0.1:{cls.port}"
        cls.server = Process([sys.executable, SERVER, "--port", str(cls.port), "--exit-with-stdin",
                              "--api-key", API_KEY, "--api-key", "da2-other",
                              "--iam-access-key", ACCESS_KEY, "--iam-secret-key", SECRET_KEY,
                              "--iam-session-token", SESSION_TOKEN, "--user-pool-token", USER_POOL_TOKEN,
                              "--oidc-token", OIDC_TOKEN, "--lambda-token", LAMBDA_TOKEN,
                              "--namespace", "default", "--namespace", "chat",
                              "--ka-interval", str(KA_INTERVAL), "--connection-timeout-ms", "12345"], ready="READY")
        assert cls.server.line.split() == ["READY", str(cls.port)], cls.server.line
        wait_for(f"http://{cls.host}/health")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self.control("reset")
        self.sockets = contextlib.ExitStack()

    def tearDown(self):
        self.sockets.close()

    # --- helpers ---

    def control(self, name, body=b"", method="POST"):
        request = urllib.request.Request(f"http://{self.host}/control/{name}", data=body if method == "POST" else None,
                                         method=method)
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    def post(self, channel, events, headers=None, body=None):
        body = body if body is not None else json.dumps({"channel": channel, "events": events}).encode()
        request = urllib.request.Request(f"http://{self.host}/event", data=body, method="POST",
                                         headers={"Content-Type": "application/json",
                                                  **({"x-api-key": API_KEY} if headers is None else headers)})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def open_socket(self, auth=None, init=True):
        auth = auth if auth is not None else {"host": self.host, "x-api-key": API_KEY}
        ws = self.sockets.enter_context(connect(
            f"ws://{self.host}/event/realtime", subprotocols=["aws-appsync-event-ws", header_subprotocol(auth)],
            open_timeout=5))
        self.assertEqual(ws.subprotocol, "aws-appsync-event-ws")
        if init:
            ws.send(json.dumps({"type": "connection_init"}))
            self.assertEqual(self.receive(ws), {"type": "connection_ack", "connectionTimeoutMs": 12345})
        return ws

    def receive(self, ws, timeout=5, skip_ka=True):
        deadline = time.time() + timeout
        while True:
            message = json.loads(ws.recv(timeout=max(0.01, deadline - time.time())))
            if not (skip_ka and message.get("type") == "ka"):
                return message

    def subscribe(self, ws, sid, channel, auth=None):
        ws.send(json.dumps({"type": "subscribe", "id": sid, "channel": channel,
                            "authorization": auth or {"host": self.host, "x-api-key": API_KEY}}))
        return self.receive(ws)

    def events_of(self, ws, count, timeout=5):
        received = []
        while len(received) < count:
            message = self.receive(ws, timeout)
            self.assertEqual(message["type"], "data", message)
            received.append((message["id"], json.loads(message["event"])))
        return received

    def assert_silent(self, ws, seconds=0.3):
        with self.assertRaises(TimeoutError):
            self.receive(ws, timeout=seconds)

    # --- HTTP publish ---

    def test_http_publish_with_api_key_reaches_a_subscriber(self):
        ws = self.open_socket()
        self.assertEqual(self.subscribe(ws, "s1", "/default/room"), {"type": "subscribe_success", "id": "s1"})
        status, answer = self.post("/default/room", [json.dumps({"n": 1}), json.dumps("two"), "3"])
        self.assertEqual(status, 200, answer)
        self.assertEqual(answer["failed"], [])
        self.assertEqual([item["index"] for item in answer["successful"]], [0, 1, 2])
        self.assertEqual(len({item["identifier"] for item in answer["successful"]}), 3)
        self.assertEqual(self.events_of(ws, 3), [("s1", {"n": 1}), ("s1", "two"), ("s1", 3)])
        self.post("/default/other", [json.dumps({"n": 4})])
        self.assert_silent(ws)
        state = self.control("state", method="GET")
        self.assertEqual((state["connections"], state["subscriptions"], state["published"], state["delivered"]),
                         (1, 1, 4, 3))

    def test_http_auth_refused(self):
        for headers in ({"x-api-key": "wrong"}, {}, {"Authorization": "not-a-token"}):
            status, answer = self.post("/default/room", ["{}"], headers=headers)
            self.assertEqual(status, 401, headers)
            self.assertEqual(answer["errors"][0]["errorType"], "UnauthorizedException")
        for token in (USER_POOL_TOKEN, OIDC_TOKEN, LAMBDA_TOKEN):
            self.assertEqual(self.post("/default/room", ["{}"], headers={"Authorization": token})[0], 200)

    def test_http_publish_signed_with_iam(self):
        body = json.dumps({"channel": "/default/room", "events": ['{"a":1}']}).encode()
        url = f"http://{self.host}/event"
        headers = sign(url, body)
        self.assertEqual(self.post(None, None, headers=headers, body=body)[0], 200)
        self.assertEqual(self.post(None, None, headers=headers, body=body + b" ")[0], 401)
        status, answer = self.post(None, None, headers=sign(url, body, secret="wrong"), body=body)
        self.assertEqual(status, 401)
        self.assertIn("signature", answer["errors"][0]["message"])

    def test_http_event_limits(self):
        status, answer = self.post("/default/room", ["{}"] * 6)
        self.assertEqual(status, 400)
        self.assertEqual(answer["errors"][0]["errorType"], "BadRequestException")
        self.assertIn("at most 5", answer["errors"][0]["message"])
        self.assertEqual(self.post("/default/room", ["{}"] * 5)[0], 200)
        exact = json.dumps("x" * (245760 - 2))
        self.assertEqual(len(exact), 245760)
        self.assertEqual(self.post("/default/room", [exact])[0], 200)
        status, answer = self.post("/default/room", [json.dumps("x" * (245760 - 1))])
        self.assertEqual(status, 400)
        self.assertIn("245761 bytes", answer["errors"][0]["message"])
        for events, words in ((["{not json"], "not valid JSON"), ([{"a": 1}], "not a string"), ([], "non-empty")):
            status, answer = self.post("/default/room", events)
            self.assertEqual(status, 400, events)
            self.assertIn(words, answer["errors"][0]["message"])
        self.assertEqual(self.post(None, None, body=b"{nope")[0], 400)

    def test_http_channel_rules(self):
        for channel, words in (("/default/a/b/c/d/e", "at most 5 segments"), ("/nowhere/room", "namespace 'nowhere'"),
                               ("/default/*", "wildcards"), ("/default/bad_seg", "segment 'bad_seg'"),
                               ("/default/" + "a" * 51, "segment"), ("/default//x", "segment ''"), ("", "required")):
            status, answer = self.post(channel, ["{}"])
            self.assertEqual(status, 400, channel)
            self.assertEqual(answer["errors"][0]["errorType"], "BadRequestException")
            self.assertIn(words, answer["errors"][0]["message"], channel)
        self.assertEqual(self.post("/default/a/b/c/d", ["{}"])[0], 200)
        self.assertEqual(self.post("/chat/x", ["{}"])[0], 200)

    # --- WebSocket ---

    def test_wildcard_subscriptions(self):
        ws = self.open_socket()
        self.assertEqual(self.subscribe(ws, "all", "/default/*")["type"], "subscribe_success")
        self.assertEqual(self.subscribe(ws, "a", "/default/a/*")["type"], "subscribe_success")
        self.post("/default/a/b", ['"deep"'])
        self.assertEqual(sorted(self.events_of(ws, 2)), [("a", "deep"), ("all", "deep")])
        self.post("/default/a", ['"shallow"'])
        self.assertEqual(self.events_of(ws, 1), [("all", "shallow")])
        self.post("/chat/a/b", ['"elsewhere"'])
        self.assert_silent(ws)
        for sid, channel in (("w1", "/default/*/x"), ("w2", "/*"), ("w3", "/default/a/b/c/d/*"), ("w4", "/nope/*")):
            answer = self.subscribe(ws, sid, channel)
            self.assertEqual((answer["type"], answer["id"]), ("subscribe_error", sid), channel)
            self.assertEqual(answer["errors"][0]["errorType"], "BadRequestException")
        self.assertEqual(self.subscribe(ws, "all", "/default/x")["errors"][0]["errorType"], "DuplicatedOperationError")

    def test_iam_connection_subscribe_and_publish(self):
        url = f"https://{self.host}/event"
        ws = self.open_socket(sign(url, b"{}"))
        channel = "/default/iam"
        answer = self.subscribe(ws, "s", channel, auth=sign(url, json.dumps({"channel": channel}, separators=(",", ":"))))
        self.assertEqual(answer, {"type": "subscribe_success", "id": "s"})
        events = ['{"via":"iam"}']
        signed = json.dumps({"channel": channel, "events": events}, separators=(",", ":"))
        ws.send(json.dumps({"type": "publish", "id": "p", "channel": channel, "events": events,
                            "authorization": sign(url, signed)}))
        self.assertEqual(self.receive(ws)["type"], "publish_success")
        self.assertEqual(self.events_of(ws, 1), [("s", {"via": "iam"})])
        answer = self.subscribe(ws, "t", channel, auth=sign(url, b"{}", secret="wrong"))
        self.assertEqual((answer["type"], answer["errors"][0]["errorType"]), ("subscribe_error", "UnauthorizedException"))

    def test_bad_connection_auth_gets_connection_error(self):
        url = f"https://{self.host}/event"
        for auth in (sign(url, b"{}", secret="wrong"), {"host": self.host, "x-api-key": "wrong"},
                     {"host": self.host, "Authorization": "nope"}):
            ws = self.open_socket(auth, init=False)
            message = self.receive(ws)
            self.assertEqual(message["type"], "connection_error")
            self.assertEqual(message["errors"][0]["errorType"], "UnauthorizedException")
            with self.assertRaises(ConnectionClosed) as closed:
                self.receive(ws, timeout=5)
            self.assertEqual(closed.exception.rcvd.code, 1000)
        for token in (USER_POOL_TOKEN, OIDC_TOKEN, LAMBDA_TOKEN):
            self.open_socket({"host": self.host, "Authorization": token})

    def test_subprotocol_is_required(self):
        with self.assertRaises(InvalidStatus) as refused:
            with connect(f"ws://{self.host}/event/realtime", subprotocols=["graphql-ws"], open_timeout=5):
                pass
        self.assertEqual(refused.exception.response.status_code, 400)

    def test_per_message_auth(self):
        ws = self.open_socket()
        answer = self.subscribe(ws, "s", "/default/room", auth={"host": self.host, "x-api-key": "wrong"})
        self.assertEqual(answer["type"], "subscribe_error")
        self.assertEqual(answer["errors"][0]["errorType"], "UnauthorizedException")
        ws.send(json.dumps({"type": "subscribe", "id": "s2", "channel": "/default/room"}))
        self.assertEqual(self.receive(ws)["type"], "subscribe_error")
        ws.send(json.dumps({"type": "publish", "id": "p", "channel": "/default/room", "events": ["1"],
                            "authorization": {"host": self.host, "x-api-key": "wrong"}}))
        answer = self.receive(ws)
        self.assertEqual((answer["type"], answer["id"]), ("publish_error", "p"))
        self.assertEqual(answer["errors"][0]["errorType"], "UnauthorizedException")
        self.assertEqual(self.subscribe(ws, "s3", "/default/room", auth={"x-api-key": "da2-other"})["type"],
                         "subscribe_success")

    def test_publish_over_websocket(self):
        publisher, listener = self.open_socket(), self.open_socket()
        self.assertEqual(self.subscribe(publisher, "mine", "/default/room")["type"], "subscribe_success")
        self.assertEqual(self.subscribe(listener, "theirs", "/default/*")["type"], "subscribe_success")
        auth = {"host": self.host, "x-api-key": API_KEY}
        publisher.send(json.dumps({"type": "publish", "id": "p1", "channel": "/default/room",
                                   "events": ['{"a":1}', '[2]'], "authorization": auth}))
        answer = self.receive(publisher)
        self.assertEqual((answer["type"], answer["id"], answer["failed"]), ("publish_success", "p1", []))
        self.assertEqual([item["index"] for item in answer["successful"]], [0, 1])
        self.assertEqual(self.events_of(publisher, 2), [("mine", {"a": 1}), ("mine", [2])])
        self.assertEqual(self.events_of(listener, 2), [("theirs", {"a": 1}), ("theirs", [2])])
        for events, channel, words in ((["1"] * 6, "/default/room", "at most 5"), (["{x"], "/default/room", "JSON"),
                                       (["1"], "/default/*", "wildcards"), (["1"], "/default/a/b/c/d/e", "segments")):
            publisher.send(json.dumps({"type": "publish", "id": "p2", "channel": channel, "events": events,
                                       "authorization": auth}))
            answer = self.receive(publisher)
            self.assertEqual((answer["type"], answer["id"]), ("publish_error", "p2"))
            self.assertEqual(answer["errors"][0]["errorType"], "BadRequestException")
            self.assertIn(words, answer["errors"][0]["message"])

    def test_unsubscribe_stops_delivery(self):
        ws = self.open_socket()
        self.subscribe(ws, "s", "/default/room")
        self.post("/default/room", ["1"])
        self.assertEqual(self.events_of(ws, 1), [("s", 1)])
        ws.send(json.dumps({"type": "unsubscribe", "id": "s"}))
        self.assertEqual(self.receive(ws), {"type": "unsubscribe_success", "id": "s"})
        self.post("/default/room", ["2"])
        self.assert_silent(ws)
        ws.send(json.dumps({"type": "unsubscribe", "id": "s"}))
        answer = self.receive(ws)
        self.assertEqual((answer["type"], answer["id"]), ("unsubscribe_error", "s"))
        self.assertEqual(self.control("state", method="GET")["subscriptions"], 0)

    def test_bad_messages_get_error(self):
        ws = self.open_socket()
        for text in ("{not json", json.dumps({"type": "start", "id": "x"}), json.dumps([1]),
                     json.dumps({"type": "ka", "pad": "x" * (1 << 20)})):
            ws.send(text)
            answer = self.receive(ws)
            self.assertEqual(answer["type"], "error", text[:40])
            self.assertTrue(answer["errors"][0]["message"])
        self.assertEqual(self.subscribe(ws, "s", "/default/room")["type"], "subscribe_success")

    def test_keep_alives_arrive_and_can_be_stopped(self):
        ws = self.open_socket()
        started = time.time()
        self.assertEqual(self.receive(ws, timeout=2, skip_ka=False), {"type": "ka"})  # right after the ack
        self.assertEqual(self.receive(ws, timeout=2, skip_ka=False), {"type": "ka"})
        self.assertGreater(time.time() - started, KA_INTERVAL * 0.7)
        self.control("stop-ka")
        self.assertTrue(self.control("state", method="GET")["kaStopped"])
        with contextlib.suppress(TimeoutError):  # one may already be on its way
            self.receive(ws, timeout=0.05, skip_ka=False)
        with self.assertRaises(TimeoutError):
            self.receive(ws, timeout=KA_INTERVAL * 4, skip_ka=False)
        self.control("start-ka")
        self.assertEqual(self.receive(ws, timeout=2, skip_ka=False), {"type": "ka"})

    def test_drop_closes_every_socket_abruptly(self):
        sockets = [self.open_socket(), self.open_socket()]
        self.control("stop-ka")
        self.control("drop")
        for ws in sockets:
            with self.assertRaises(ConnectionClosed) as closed:
                self.receive(ws, timeout=5)
            self.assertIsNone(closed.exception.rcvd)  # no close frame came
        time.sleep(0.1)
        self.assertEqual(self.control("state", method="GET")["connections"], 0)

    def test_close_sends_a_close_frame(self):
        ws = self.open_socket()
        self.control("stop-ka")
        self.control("close?code=4001&reason=bye")
        with self.assertRaises(ConnectionClosed) as closed:
            self.receive(ws, timeout=5)
        self.assertEqual((closed.exception.rcvd.code, closed.exception.rcvd.reason), (4001, "bye"))

    def test_truncate_cuts_the_next_data_frame(self):
        ws = self.open_socket()
        self.subscribe(ws, "s", "/default/room")
        self.control("stop-ka")
        self.assertEqual(self.control("truncate")["connections"], 1)
        self.post("/default/room", [json.dumps({"text": "x" * 200})])
        with self.assertRaises(ConnectionClosed) as closed:
            self.receive(ws, timeout=5)
        self.assertIsNone(closed.exception.rcvd)

    def test_burst_delivers_in_order(self):
        ws, other = self.open_socket(), self.open_socket()
        self.subscribe(ws, "b", "/default/bench")
        self.subscribe(other, "w", "/default/*")
        before = time.time_ns()
        answer = self.control("burst?channel=/default/bench&count=2000&size=64")
        self.assertEqual((answer["subscriptions"], answer["delivered"]), (2, 4000))
        for socket_, sid in ((ws, "b"), (other, "w")):
            received = self.events_of(socket_, 2000)
            self.assertEqual([event["seq"] for _, event in received], list(range(2000)))
            self.assertEqual({s for s, _ in received}, {sid})
            self.assertEqual(len(received[0][1]["pad"]), 64)
            self.assertGreaterEqual(received[0][1]["sentNs"], before)
        self.assertEqual(self.control("state", method="GET")["delivered"], 4000)

    def test_iam_credentials_added_at_run_time(self):
        url = f"https://{self.host}/event"
        auth = sign(url, b"{}", key="AKIDLATER", secret="later-secret", token=None)
        ws = self.open_socket(auth, init=False)
        self.assertEqual(self.receive(ws)["type"], "connection_error")
        self.control("iam-credentials", json.dumps({"accessKeyId": "AKIDLATER", "secretAccessKey": "later-secret"}).encode())
        self.open_socket(sign(url, b"{}", key="AKIDLATER", secret="later-secret", token=None))


if __name__ == "__main__":
    unittest.main()
