"""Self-test of the AppSync stand-in. Run it with the test-tools venv's python (graphql-core,
websockets, botocore, PyJWT and moto are there):

    .build/test-tools/venv/bin/python Sources/AmplifyTestKit/AppSync/test_appsync_server.py -v

It starts appsync_server.py as subprocesses on free ports (a plain one with every auth mode, a TLS
one with a self-signed certificate made by the openssl command), and moto_server for the user-pool
tokens and their JWKS (the user-pool checks are skipped when moto_server is missing), waits until
each answers, exercises them over HTTP and WebSocket, and stops them by PID.
"""
import base64
import contextlib
import gzip
import json
import os
import select
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
import jwt
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "appsync_server.py")
ACCESS_KEY, SECRET_KEY = "AKIDAPPSYNCTEST", "appsync-test-secret"
OIDC_TOKEN, LAMBDA_TOKEN = "oidc-token-1", "lambda-token-1"
KA_INTERVAL = 0.3
MAX_SUBSCRIPTIONS = 3
CREATE = "mutation Create($input: CreateTodoInput!) { createTodo(input: $input) { id name owner createdAt } }"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(url, context=None, timeout=15):
    deadline = time.time() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2, context=context) as answer:
                return answer.read()
        except (urllib.error.URLError, ConnectionError, OSError):
            if time.time() > deadline:
                raise
            time.sleep(0.1)


class Process:
    """A subprocess stopped by its PID."""

    def __init__(self, command, ready=None):
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True,
                                        stderr=None if ready else subprocess.DEVNULL)
        if ready:
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


def start_appsync(*arguments, tls=None):
    port = free_port()
    command = [sys.executable, SERVER, "--port", str(port), *arguments]
    if tls:
        command += ["--tls-cert", tls[0], "--tls-key", tls[1]]
    server = Process(command, ready="READY")
    assert server.line.split() == ["READY", str(port)], server.line
    scheme = "https" if tls else "http"
    context = ssl.create_default_context(cafile=tls[0]) if tls else None
    wait_for(f"{scheme}://127.0.0.1:{port}/health", context)
    return server, port


def sign(method, url, body, headers, key=ACCESS_KEY, secret=SECRET_KEY, token=None):
    request = AWSRequest(method=method, url=url, data=body, headers=headers)
    SigV4Auth(Credentials(key, secret, token), "appsync", "us-east-1").add_auth(request)
    return dict(request.headers.items())


def header_subprotocol(auth):
    return "header-" + base64.urlsafe_b64encode(json.dumps(auth).encode()).decode().rstrip("=")


class AppSyncServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.temp = tempfile.TemporaryDirectory()
        cls.cert, cls.key = os.path.join(cls.temp.name, "cert.pem"), os.path.join(cls.temp.name, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", cls.key, "-out",
                        cls.cert, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                       check=True, capture_output=True)
        cls.processes = []
        cls.pool = None
        user_pool_flags = []
        moto = os.path.join(os.path.dirname(sys.executable), "moto_server")
        if os.path.exists(moto):
            moto_port = free_port()
            cls.processes.append(Process([moto, "-H", "127.0.0.1", "-p", str(moto_port)]))
            wait_for(f"http://127.0.0.1:{moto_port}/moto-api/data.json")
            cls.pool = cls.make_user_pool(f"http://127.0.0.1:{moto_port}")
            user_pool_flags = ["--jwks-url", f"http://127.0.0.1:{moto_port}/{cls.pool['id']}/.well-known/jwks.json",
                               "--user-pool-issuer", f"https://cognito-idp.us-east-1.amazonaws.com/{cls.pool['id']}",
                               "--user-pool-client-id", cls.pool["client"]]
        server, cls.port = start_appsync(
            "--api-key", "key-one", "--api-key", "key-two", "--iam-access-key", ACCESS_KEY, "--iam-secret-key",
            SECRET_KEY, "--oidc-token", OIDC_TOKEN, "--lambda-token", LAMBDA_TOKEN, "--default-auth", "API_KEY",
            "--ka-interval", str(KA_INTERVAL), "--connection-timeout-ms", "12345",
            "--max-subscriptions", str(MAX_SUBSCRIPTIONS), *user_pool_flags)
        cls.processes.append(server)
        tls_server, cls.tls_port = start_appsync("--api-key", "key-one", tls=(cls.cert, cls.key))
        cls.processes.append(tls_server)

    @classmethod
    def tearDownClass(cls):
        for process in reversed(cls.processes):
            process.stop()
        cls.temp.cleanup()

    @staticmethod
    def make_user_pool(endpoint):
        import boto3
        idp = boto3.client("cognito-idp", endpoint_url=endpoint, region_name="us-east-1",
                           aws_access_key_id="testing", aws_secret_access_key="testing")
        pool = idp.create_user_pool(PoolName="appsync")["UserPool"]["Id"]
        client = idp.create_user_pool_client(UserPoolId=pool, ClientName="app")["UserPoolClient"]["ClientId"]
        other = idp.create_user_pool_client(UserPoolId=pool, ClientName="other")["UserPoolClient"]["ClientId"]
        idp.create_group(UserPoolId=pool, GroupName="admins")
        tokens = {}
        for user, app in (("alice", client), ("bob", client), ("carol", other)):
            idp.admin_create_user(UserPoolId=pool, Username=user, MessageAction="SUPPRESS")
            idp.admin_set_user_password(UserPoolId=pool, Username=user, Password="Passw0rd!", Permanent=True)
            if user == "alice":
                idp.admin_add_user_to_group(UserPoolId=pool, Username=user, GroupName="admins")
            tokens[user] = idp.admin_initiate_auth(
                UserPoolId=pool, ClientId=app, AuthFlow="ADMIN_NO_SRP_AUTH",
                AuthParameters={"USERNAME": user, "PASSWORD": "Passw0rd!"})["AuthenticationResult"]
        return {"id": pool, "client": client, "tokens": tokens}

    def setUp(self):
        self.control("reset")
        self.sockets = contextlib.ExitStack()

    def tearDown(self):
        self.sockets.close()

    # --- helpers ---

    def control(self, name, port=None, body=b""):
        request = urllib.request.Request(f"http://127.0.0.1:{port or self.port}/control/{name}", data=body, method="POST")
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    def post(self, query, variables=None, headers=None, body=None, port=None, tls=False):
        body = body if body is not None else json.dumps({"query": query, "variables": variables or {}}).encode()
        scheme = "https" if tls else "http"
        request = urllib.request.Request(f"{scheme}://127.0.0.1:{port or self.port}/graphql", data=body, method="POST",
                                         headers={"Content-Type": "application/json", **(headers or {})})
        context = ssl.create_default_context(cafile=self.cert) if tls else None
        try:
            with urllib.request.urlopen(request, timeout=10, context=context) as answer:
                return answer.status, json.loads(answer.read()), answer.headers
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read()), error.headers

    def api_key(self, query, variables=None, key="key-one", **options):
        return self.post(query, variables, {"x-api-key": key}, **options)

    def iam(self, query, variables=None, secret=SECRET_KEY, key=ACCESS_KEY, tamper=False):
        body = json.dumps({"query": query, "variables": variables or {}}).encode()
        host = f"127.0.0.1:{self.port}"
        headers = sign("POST", f"http://{host}/graphql", body, {"Content-Type": "application/json", "host": host},
                       key=key, secret=secret)
        return self.post(query, headers=headers, body=body + (b" " if tamper else b""))

    def create(self, name, **fields):
        status, answer, _ = self.api_key(CREATE, {"input": {"name": name, **fields}})
        self.assertEqual(status, 200, answer)
        self.assertNotIn("errors", answer)
        return answer["data"]["createTodo"]

    def open_socket(self, auth=None, port=None, tls=False, path="/graphql/realtime", query="", headers=None):
        scheme = "wss" if tls else "ws"
        port = port or (self.tls_port if tls else self.port)
        protocols = ["graphql-ws"] + ([header_subprotocol(auth)] if auth else [])
        context = ssl.create_default_context(cafile=self.cert) if tls else None
        ws = self.sockets.enter_context(connect(f"{scheme}://127.0.0.1:{port}{path}{query}", subprotocols=protocols,
                                                ssl=context, additional_headers=headers, open_timeout=10))
        self.assertEqual(ws.subprotocol, "graphql-ws")
        return ws

    def receive(self, ws, timeout=5, skip_ka=True):
        deadline = time.time() + timeout
        while True:
            message = json.loads(ws.recv(timeout=max(0.01, deadline - time.time())))
            if not (skip_ka and message.get("type") == "ka"):
                return message

    def init(self, ws):
        ws.send(json.dumps({"type": "connection_init"}))
        ack = self.receive(ws)
        self.assertEqual(ack, {"type": "connection_ack", "payload": {"connectionTimeoutMs": 12345}})

    def start(self, ws, sid, query, variables=None, auth=None, expect="start_ack"):
        data = json.dumps({"query": query, "variables": variables or {}})
        auth = auth if auth is not None else {"host": f"127.0.0.1:{self.port}", "x-api-key": "key-one"}
        ws.send(json.dumps({"id": sid, "type": "start", "payload": {"data": data, "extensions": {"authorization": auth}}}))
        answer = self.receive(ws)
        if expect:
            self.assertEqual(answer.get("type"), expect, answer)
            self.assertEqual(answer.get("id"), sid)
        return answer

    def user_token(self, user="alice", kind="IdToken"):
        if not self.pool:
            self.skipTest("moto_server is not installed beside this python")
        return self.pool["tokens"][user][kind]

    # --- authorization over HTTP ---

    def test_api_keys_accepted_and_wrong_or_missing_key_refused(self):
        for key in ("key-one", "key-two"):
            status, answer, _ = self.api_key("{ whoAmI { authMode } }", key=key)
            self.assertEqual((status, answer), (200, {"data": {"whoAmI": {"authMode": "API_KEY"}}}))
        status, answer, headers = self.api_key("{ whoAmI { authMode } }", key="key-three")
        self.assertEqual(status, 401)
        self.assertEqual(answer, {"errors": [{"errorType": "UnauthorizedException",
                                              "message": "You are not authorized to make this call."}]})
        self.assertEqual(headers["x-amzn-ErrorType"], "UnauthorizedException")
        status, answer, _ = self.post("{ whoAmI { authMode } }")
        self.assertEqual((status, answer["errors"][0]["errorType"]), (401, "UnauthorizedException"))

    def test_user_pool_tokens_verified(self):
        for kind in ("IdToken", "AccessToken"):
            status, answer, _ = self.post("{ whoAmI { authMode username } }",
                                          headers={"Authorization": self.user_token(kind=kind)})
            self.assertEqual(answer, {"data": {"whoAmI": {"authMode": "AMAZON_COGNITO_USER_POOLS", "username": "alice"}}})
        claims = jwt.decode(self.user_token(), options={"verify_signature": False})
        # The same claims signed by another key, then by moto's own key but expired.
        from cryptography.hazmat.primitives.asymmetric import rsa
        other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        forged = jwt.encode(claims, other_key, algorithm="RS256", headers={"kid": "dummy"})
        status, answer, _ = self.post("{ whoAmI { authMode } }", headers={"Authorization": forged})
        self.assertEqual((status, answer["errors"][0]["errorType"]), (401, "UnauthorizedException"))
        import moto
        with gzip.open(os.path.join(os.path.dirname(moto.__file__), "cognitoidp/resources/jwks-private.json.gz")) as file:
            moto_key = jwt.algorithms.RSAAlgorithm.from_jwk(file.read().decode())
        expired = jwt.encode({**claims, "exp": int(time.time()) - 60}, moto_key, algorithm="RS256", headers={"kid": "dummy"})
        status, answer, _ = self.post("{ whoAmI { authMode } }", headers={"Authorization": expired})
        self.assertEqual((status, answer["errors"][0]["message"]), (401, "Token has expired."))
        resigned = jwt.encode(claims, moto_key, algorithm="RS256", headers={"kid": "dummy"})
        self.assertEqual(self.post("{ whoAmI { authMode } }", headers={"Authorization": resigned})[0], 200)
        # A token of another app client, and one that is not a JWT at all.
        status, _, _ = self.post("{ whoAmI { authMode } }", headers={"Authorization": self.user_token("carol")})
        self.assertEqual(status, 401)
        status, answer, _ = self.post("{ whoAmI { authMode } }", headers={"Authorization": "abc.def.ghi"})
        self.assertEqual((status, answer["errors"][0]["message"]), (401, "Unable to parse JWT token."))

    def test_user_pool_groups_on_a_field(self):
        status, answer, _ = self.post("{ adminNote }", headers={"Authorization": self.user_token("alice")})
        self.assertEqual(answer, {"data": {"adminNote": "only admins read this"}})
        status, answer, _ = self.post("{ adminNote }", headers={"Authorization": self.user_token("bob")})
        self.assertEqual(answer["data"], {"adminNote": None})
        self.assertEqual(answer["errors"][0]["errorType"], "Unauthorized")

    def test_iam_signature_recomputed(self):
        status, answer, _ = self.iam("{ whoAmI { authMode username } iamOnlyNote }")
        self.assertEqual((status, answer), (200, {"data": {"whoAmI": {"authMode": "AWS_IAM", "username": ACCESS_KEY},
                                                           "iamOnlyNote": "only IAM callers read this"}}))
        status, answer, _ = self.iam("{ whoAmI { authMode } }", secret="wrong-secret")
        self.assertEqual((status, answer["errors"][0]["errorType"]), (403, "InvalidSignatureException"))
        self.assertIn("The Canonical String for this request should have been", answer["errors"][0]["message"])
        status, answer, _ = self.iam("{ whoAmI { authMode } }", tamper=True)
        self.assertEqual((status, answer["errors"][0]["errorType"]), (403, "InvalidSignatureException"))
        status, answer, _ = self.iam("{ whoAmI { authMode } }", key="AKIDUNKNOWN")
        self.assertEqual((status, answer["errors"][0]["errorType"]), (403, "UnrecognizedClientException"))
        self.control("iam-credentials", body=json.dumps({"accessKeyId": "AKIDUNKNOWN", "secretAccessKey": "s"}).encode())
        self.assertEqual(self.iam("{ whoAmI { authMode } }", key="AKIDUNKNOWN", secret="s")[0], 200)

    def test_field_level_directive_overrides_type(self):
        status, answer, _ = self.api_key("{ iamOnlyNote whoAmI { authMode } }")
        self.assertEqual(answer["data"], {"iamOnlyNote": None, "whoAmI": {"authMode": "API_KEY"}})
        self.assertEqual(answer["errors"][0]["message"], "Not Authorized to access iamOnlyNote on type Query")

    def test_oidc_and_lambda_tokens_compared(self):
        for token, mode in ((OIDC_TOKEN, "OPENID_CONNECT"), (LAMBDA_TOKEN, "AWS_LAMBDA")):
            status, answer, _ = self.post("{ whoAmI { authMode } }", headers={"Authorization": token})
            self.assertEqual((status, answer), (200, {"data": {"whoAmI": {"authMode": mode}}}))
        status, answer, _ = self.post("{ whoAmI { authMode } }", headers={"Authorization": "some-other-token"})
        self.assertEqual((status, answer["errors"][0]["errorType"]), (401, "UnauthorizedException"))

    # --- execution ---

    def test_partial_data_when_a_field_fails(self):
        todo = self.create("first")
        status, answer, _ = self.api_key("query($id: ID!) {\n  getTodo(id: $id) { id name failingField }\n  errorTodo(id: $id) { id }\n}",
                                         {"id": todo["id"]})
        self.assertEqual(status, 200)
        self.assertEqual(answer["data"], {"getTodo": {"id": todo["id"], "name": "first", "failingField": None},
                                          "errorTodo": None})
        self.assertEqual(answer["errors"], [
            {"path": ["getTodo", "failingField"], "data": None, "errorType": "CustomError", "errorInfo": None,
             "locations": [{"line": 2, "column": 30, "sourceName": None}], "message": "failingField always fails"},
            {"path": ["errorTodo"], "data": None, "errorType": "CustomError", "errorInfo": None,
             "locations": [{"line": 3, "column": 3, "sourceName": None}], "message": f"Todo {todo['id']} could not be read"}])

    def test_validation_syntax_and_request_errors(self):
        _, answer, _ = self.api_key("{ getTodo(id: \"1\") { id nope } }")
        self.assertEqual(answer, {"data": None, "errors": [{"path": None, "locations": [{"line": 1, "column": 25, "sourceName": None}],
                                  "message": "Validation error of type FieldUndefined: Field 'nope' in type 'Todo' is undefined @ 'getTodo/nope'"}]})
        _, answer, _ = self.api_key("{ getTodo { id } }")
        self.assertIn("MissingFieldArgument", answer["errors"][0]["message"])
        _, answer, _ = self.api_key("{ getTodo(id: \"1\") { id }")
        self.assertTrue(answer["errors"][0]["message"].startswith("Invalid Syntax"))
        status, answer, _ = self.post(None, headers={"x-api-key": "key-one"}, body=b"not json")
        self.assertEqual((status, answer["errors"][0]["errorType"]), (400, "MalformedHttpRequestException"))

    def test_appsync_scalars(self):
        todo = self.create("scalars", meta=json.dumps({"a": [1, 2]}), dueAt="2025-01-02T03:04:05.678Z", dueDate="2025-01-02",
                           remindAt="08:30:00", stamp=1700000000, email="a@example.com", url="https://example.com/x",
                           phone="+1 555 0100", ip="127.0.0.1")
        _, answer, _ = self.api_key("query($id: ID!) { getTodo(id: $id) { meta dueAt dueDate remindAt stamp email url phone ip } }",
                                    {"id": todo["id"]})
        self.assertEqual(answer["data"]["getTodo"], {
            "meta": '{"a":[1,2]}', "dueAt": "2025-01-02T03:04:05.678Z", "dueDate": "2025-01-02", "remindAt": "08:30:00",
            "stamp": 1700000000, "email": "a@example.com", "url": "https://example.com/x", "phone": "+1 555 0100", "ip": "127.0.0.1"})
        for field, value in (("email", "not-an-email"), ("dueAt", "yesterday"), ("meta", "{nope"), ("stamp", "12"), ("url", "x")):
            status, answer, _ = self.api_key(CREATE, {"input": {"name": "bad", field: value}})
            self.assertEqual((status, answer["data"]), (200, None), field)
            self.assertTrue(answer["errors"][0]["message"], field)

    def test_conditional_check_and_lists(self):
        _, answer, _ = self.api_key("mutation { updateTodo(input: {id: \"missing\", name: \"x\"}) { id } }")
        self.assertEqual(answer["data"], {"updateTodo": None})
        self.assertEqual(answer["errors"][0]["errorType"], "DynamoDB:ConditionalCheckFailedException")
        for index in range(5):
            self.create(f"item-{index}", priority=index)
        seen, token = [], None
        while True:
            _, answer, _ = self.api_key("query($t: String) { listTodos(limit: 2, nextToken: $t) { items { name } nextToken } }", {"t": token})
            page = answer["data"]["listTodos"]
            seen += [item["name"] for item in page["items"]]
            token = page["nextToken"]
            if token is None:
                break
        self.assertEqual(seen, [f"item-{index}" for index in range(5)])
        _, answer, _ = self.api_key("{ listTodos(filter: {priority: {ge: 3}}) { items { name } } }")
        self.assertEqual(answer["data"]["listTodos"]["items"], [{"name": "item-3"}, {"name": "item-4"}])
        _, answer, _ = self.api_key("mutation { deleteTodo(input: {id: \"missing\"}) { id } }")
        self.assertEqual(answer["errors"][0]["errorType"], "DynamoDB:ConditionalCheckFailedException")

    def test_seed_todos(self):
        seeded = self.control("seed", body=json.dumps({"Todo": [{"id": "s1", "name": "one"}, {"name": "two", "priority": 2}]}).encode())
        self.assertEqual(seeded, {"ok": True, "seeded": {"Todo": 2}})
        _, answer, _ = self.api_key("{ listTodos { items { name priority createdAt } } }")
        self.assertEqual([(item["name"], item["priority"]) for item in answer["data"]["listTodos"]["items"]], [("one", None), ("two", 2)])
        self.assertTrue(answer["data"]["listTodos"]["items"][0]["createdAt"])
        with self.assertRaises(urllib.error.HTTPError) as refused:
            self.control("seed", body=json.dumps({"Post": []}).encode())
        self.assertEqual(refused.exception.code, 400)
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/control/state") as answer:
            self.assertEqual(json.loads(answer.read())["todos"], 2)

    # --- real time ---

    def test_subscription_receives_mutations_in_order(self):
        ws = self.open_socket({"host": f"127.0.0.1:{self.port}", "x-api-key": "key-one"})
        self.init(ws)
        self.start(ws, "all", "subscription { onCreateTodo { id name description owner __typename } }")
        self.start(ws, "only-b", "subscription($n: String) { onCreateTodo(name: $n) { name } }", {"n": "b"})
        names = ["a", "b", "c", "b", "d"]
        created = [self.create(name) for name in names]
        received = {"all": [], "only-b": []}
        while len(received["all"]) < len(names) or len(received["only-b"]) < 2:
            message = self.receive(ws)
            self.assertEqual(message["type"], "data", message)
            received[message["id"]].append(message["payload"]["data"]["onCreateTodo"])
        # The subscription sees the fields the mutation selected; description was not among them.
        self.assertEqual(received["all"], [{"id": todo["id"], "name": todo["name"], "description": None, "owner": None,
                                            "__typename": "Todo"} for todo in created])
        self.assertEqual(received["only-b"], [{"name": "b"}, {"name": "b"}])
        ws.send(json.dumps({"type": "stop", "id": "all"}))
        self.assertEqual(self.receive(ws), {"type": "complete", "id": "all"})
        self.create("e")  # not "b", and "all" is stopped: nothing comes
        self.assert_quiet(ws)

    def assert_quiet(self, ws, seconds=0.8):
        try:
            message = self.receive(ws, timeout=seconds)
        except TimeoutError:
            return
        self.fail(f"unexpected message {message}")

    def test_update_and_delete_subscriptions(self):
        todo = self.create("to-change")
        ws = self.open_socket({"host": "h", "x-api-key": "key-two"})
        self.init(ws)
        self.start(ws, "u", "subscription($id: ID) { onUpdateTodo(id: $id) { id name } }", {"id": todo["id"]})
        self.start(ws, "d", "subscription { onDeleteTodo(filter: {name: {beginsWith: \"to-\"}}) { id } }")
        self.api_key("mutation($id: ID!) { updateTodo(input: {id: $id, name: \"changed\"}) { id name } }", {"id": todo["id"]})
        self.assertEqual(self.receive(ws), {"type": "data", "id": "u", "payload": {"data": {"onUpdateTodo": {"id": todo["id"], "name": "changed"}}}})
        self.api_key("mutation($id: ID!) { deleteTodo(input: {id: $id}) { id name } }", {"id": todo["id"]})
        self.assert_quiet(ws)  # the deleted item's name is "changed" now, not "to-..."
        other = self.create("to-go")
        self.api_key("mutation($id: ID!) { deleteTodo(input: {id: $id}) { id name } }", {"id": other["id"]})
        self.assertEqual(self.receive(ws), {"type": "data", "id": "d", "payload": {"data": {"onDeleteTodo": {"id": other["id"]}}}})

    def test_connection_auth_forms(self):
        # The header query with a user-pool token (or IAM when moto is missing), then plain upgrade headers.
        if self.pool:
            auth = {"host": f"127.0.0.1:{self.port}", "Authorization": self.pool["tokens"]["alice"]["IdToken"]}
        else:
            auth = {"host": f"127.0.0.1:{self.port}", "x-api-key": "key-one"}
        header = base64.b64encode(json.dumps(auth).encode()).decode()
        ws = self.open_socket(query=f"?header={header}&payload=e30=", path="/graphql")
        self.init(ws)
        self.start(ws, "1", "subscription { onAnyTodo { name } }", auth=auth)
        self.create("via-query")
        self.assertEqual(self.receive(ws)["payload"], {"data": {"onAnyTodo": {"name": "via-query"}}})
        ws = self.open_socket(headers={"x-api-key": "key-one"})
        self.init(ws)

    def test_iam_connection_and_start(self):
        host = f"127.0.0.1:{self.port}"
        base = {"accept": "application/json, text/javascript", "content-encoding": "amz-1.0",
                "content-type": "application/json; charset=UTF-8", "host": host}
        connect_auth = sign("POST", f"https://{host}/graphql/connect", b"{}", base)
        ws = self.open_socket(connect_auth)
        self.init(ws)
        data = json.dumps({"query": "subscription { onCreateTodo { name } }", "variables": {}})
        start_auth = sign("POST", f"https://{host}/graphql", data.encode(), base)
        ws.send(json.dumps({"id": "iam", "type": "start", "payload": {"data": data, "extensions": {"authorization": start_auth}}}))
        self.assertEqual(self.receive(ws), {"type": "start_ack", "id": "iam"})
        self.create("signed")
        self.assertEqual(self.receive(ws)["payload"], {"data": {"onCreateTodo": {"name": "signed"}}})
        wrong = sign("POST", f"https://{host}/graphql", data.encode(), base, secret="wrong")
        ws.send(json.dumps({"id": "bad", "type": "start", "payload": {"data": data, "extensions": {"authorization": wrong}}}))
        answer = self.receive(ws)
        self.assertEqual((answer["type"], answer["id"], answer["payload"]["errors"][0]["errorType"]),
                         ("error", "bad", "UnauthorizedException"))
        bad_connect = sign("POST", f"https://{host}/graphql/connect", b"{}", base, secret="wrong")
        ws = self.open_socket(bad_connect)
        self.assertEqual(self.receive(ws)["type"], "connection_error")

    def test_bad_connection_auth_gets_connection_error(self):
        ws = self.open_socket({"host": "h", "x-api-key": "wrong"})
        ws.send(json.dumps({"type": "connection_init"}))
        self.assertEqual(self.receive(ws), {"type": "connection_error", "payload": {"errors": [
            {"errorType": "UnauthorizedException", "message": "You are not authorized to make this call.", "errorCode": 401}]}})
        with self.assertRaises(ConnectionClosed):
            self.receive(ws)

    def test_start_errors(self):
        ws = self.open_socket({"host": "h", "x-api-key": "key-one"})
        self.init(ws)
        answer = self.start(ws, "1", "subscription { onCreateTodo { id } }", auth={"host": "h", "x-api-key": "nope"}, expect="error")
        self.assertEqual(answer["payload"]["errors"][0]["errorType"], "UnauthorizedException")
        answer = self.start(ws, "2", "subscription { onCreateTodo { nope } }", expect="error")
        self.assertEqual(answer["payload"], {"errors": [{"message": "Validation error of type FieldUndefined: Field 'nope' "
                                                                    "in type 'Todo' is undefined @ 'onCreateTodo/nope'"}]})
        answer = self.start(ws, "3", "query { listTodos { nextToken } }", expect="error")
        self.assertEqual(answer["payload"]["errors"][0]["errorType"], "UnsupportedOperation")
        ws.send(json.dumps({"type": "subscribe", "id": "4"}))
        self.assertEqual(self.receive(ws), {"type": "error", "payload": {"errors": [
            {"errorType": "UnsupportedOperation", "message": "unknown not supported through the realtime channel"}]}})

    def test_subscription_limit_per_connection(self):
        ws = self.open_socket({"host": "h", "x-api-key": "key-one"})
        self.init(ws)
        for index in range(MAX_SUBSCRIPTIONS):
            self.start(ws, f"s{index}", "subscription { onCreateTodo { id } }")
        answer = self.start(ws, "s0", "subscription { onCreateTodo { id } }", expect="error")
        self.assertEqual(answer["payload"]["errors"][0]["errorType"], "DuplicatedOperationError")
        answer = self.start(ws, "one-too-many", "subscription { onCreateTodo { id } }", expect="error")
        self.assertEqual(answer["payload"]["errors"][0]["errorType"], "MaxSubscriptionsReachedError")
        ws.send(json.dumps({"type": "stop", "id": "s1"}))
        self.assertEqual(self.receive(ws), {"type": "complete", "id": "s1"})
        self.start(ws, "after-stop", "subscription { onCreateTodo { id } }")
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/control/state") as answer:
            self.assertEqual(json.loads(answer.read())["subscriptions"], MAX_SUBSCRIPTIONS)

    def test_keep_alives_arrive_and_can_be_stopped(self):
        ws = self.open_socket({"host": "h", "x-api-key": "key-one"})
        self.init(ws)
        started = time.time()
        for _ in range(3):
            self.assertEqual(self.receive(ws, timeout=2, skip_ka=False), {"type": "ka"})
        self.assertLess(time.time() - started, 2 * KA_INTERVAL + 1.5)
        self.control("stop-ka")
        time.sleep(KA_INTERVAL * 1.5)
        while True:  # drain what was already on its way
            try:
                self.receive(ws, timeout=0.05, skip_ka=False)
            except TimeoutError:
                break
        with self.assertRaises(TimeoutError):
            self.receive(ws, timeout=KA_INTERVAL * 4, skip_ka=False)
        self.control("start-ka")
        self.assertEqual(self.receive(ws, timeout=2, skip_ka=False), {"type": "ka"})

    def test_drop_closes_every_socket_abruptly(self):
        sockets = [self.open_socket({"host": "h", "x-api-key": "key-one"}) for _ in range(2)]
        for ws in sockets:
            self.init(ws)
        self.control("stop-ka")
        self.control("drop")
        for ws in sockets:
            with self.assertRaises(ConnectionClosed) as closed:
                while True:
                    self.receive(ws, timeout=5, skip_ka=True)
            self.assertIsNone(closed.exception.rcvd)  # no close frame came
        ws = self.open_socket({"host": "h", "x-api-key": "key-one"})  # the server still serves
        self.init(ws)

    def test_stall_delays_the_next_answer(self):
        self.control("stall?seconds=1&count=1")
        started = time.time()
        self.assertEqual(self.api_key("{ whoAmI { authMode } }")[0], 200)
        self.assertGreaterEqual(time.time() - started, 0.9)
        started = time.time()
        self.api_key("{ whoAmI { authMode } }")
        self.assertLess(time.time() - started, 0.9)
        ws = self.open_socket({"host": "h", "x-api-key": "key-one"})
        self.control("stall?seconds=1&count=1&scope=ws")
        started = time.time()
        self.init(ws)
        self.assertGreaterEqual(time.time() - started, 0.9)
        self.control("fail?status=503&errorType=ServiceUnavailableException&message=busy")
        self.assertEqual(self.api_key("{ whoAmI { authMode } }")[:2],
                         (503, {"errors": [{"errorType": "ServiceUnavailableException", "message": "busy"}]}))

    def test_wss_and_https(self):
        status, answer, _ = self.api_key("{ whoAmI { authMode } }", port=self.tls_port, tls=True)
        self.assertEqual((status, answer), (200, {"data": {"whoAmI": {"authMode": "API_KEY"}}}))
        ws = self.open_socket({"host": "h", "x-api-key": "key-one"}, tls=True)
        self.init_tls(ws)
        self.start(ws, "tls", "subscription { onCreateTodo { name } }")
        status, answer, _ = self.api_key(CREATE, {"input": {"name": "over-tls"}}, port=self.tls_port, tls=True)
        self.assertEqual(status, 200, answer)
        self.assertEqual(self.receive(ws)["payload"], {"data": {"onCreateTodo": {"name": "over-tls"}}})

    def init_tls(self, ws):
        ws.send(json.dumps({"type": "connection_init"}))
        self.assertEqual(self.receive(ws), {"type": "connection_ack", "payload": {"connectionTimeoutMs": 300000}})


if __name__ == "__main__":
    unittest.main()
