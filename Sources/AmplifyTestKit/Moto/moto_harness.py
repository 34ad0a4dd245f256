"""The tests' moto_server: serves moto on 127.0.0.1 on a free port, prints {"port": N} once it
answers, then takes one JSON command per line on standard input and answers each with one JSON
line on standard output. It exits when standard input closes (or on SIGTERM / SIGKILL).

Commands:
  {"op": "reset"}                       POST /moto-api/reset (and strict signatures off)
  {"op": "strict", "on": true|false}    POST /moto-api/reset-auth: every later request must carry
                                        a valid SigV4 signature from a seeded IAM user's key
  {"op": "seed", ...}                   creates what the spec names, with boto3:
      "buckets": ["name", ...]
      "userPool": {"name": "...", "clientSecret": false,
                   "users": [{"username": "...", "password": "...", "attributes": {"email": "..."},
                              "mfa": "sms" | "totp" (optional; the pool's MFA becomes OPTIONAL),
                              "temporaryPassword": "..." (instead of password: NEW_PASSWORD_REQUIRED)}]}
      "identityPool": {"name": "...", "allowGuests": true}   (linked to the seeded user pool)
      "iamUser": "name"                 a user with an allow-everything policy and an access key
      "kinesisStreams": ["name", ...]   Kinesis data streams with one shard
      "firehoseStreams": [{"name": "...", "bucket": "..."}]   Firehose delivery streams writing
                                        into an S3 bucket (created if missing)
    and answers with the ids: bucket names, userPoolId, clientId, clientSecret, identityPoolId,
    accessKeyId, secretAccessKey.
  {"op": "call", "service": "cognito-idp", "method": "admin_delete_user", "arguments": {...}}
                                        any boto3 call; answers its result (dates as strings)
  {"op": "tokens", "userPoolId": "...", "clientId": "...", "username": "...", "password": "..."}
                                        signs the user in (admin flow) and answers with moto's
                                        AuthenticationResult (IdToken, AccessToken, RefreshToken)
"""
import base64
import hashlib
import hmac
import json
import os
import signal
import sys
import threading
import urllib.request

signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

from werkzeug.serving import make_server  # noqa: E402
from moto.moto_server.werkzeug_app import (  # noqa: E402
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)

REGION = "us-east-1"
server = make_server("127.0.0.1", 0, DomainDispatcherApplication(create_backend_app), True,
                     request_handler=MotoRequestHandler)
PORT = server.server_address[1]
ENDPOINT = f"http://127.0.0.1:{PORT}"
threading.Thread(target=server.serve_forever, daemon=True).start()
credentials = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}


def post(path, body=b""):
    request = urllib.request.Request(ENDPOINT + path, data=body, method="POST",
                                     headers={"Content-Type": "text/plain"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read() or b"{}")


def client(service):
    import boto3
    return boto3.client(service, endpoint_url=ENDPOINT, region_name=REGION, **credentials)


def auth_parameters(user, app):
    parameters = {"USERNAME": user["username"], "PASSWORD": user["password"]}
    if app.get("ClientSecret"):
        message = (user["username"] + app["ClientId"]).encode()
        digest = hmac.new(app["ClientSecret"].encode(), message, hashlib.sha256).digest()
        parameters["SECRET_HASH"] = base64.b64encode(digest).decode()
    return parameters


def seed(spec):
    result = {}
    if spec.get("buckets"):
        s3 = client("s3")
        for bucket in spec["buckets"]:
            s3.create_bucket(Bucket=bucket)
        result["buckets"] = spec["buckets"]
    pool = spec.get("userPool")
    if pool:
        idp = client("cognito-idp")
        users = pool.get("users", [])
        mfa = "OPTIONAL" if any(user.get("mfa") for user in users) else "OFF"
        pool_id = idp.create_user_pool(PoolName=pool.get("name", "pool"), MfaConfiguration=mfa)["UserPool"]["Id"]
        app = idp.create_user_pool_client(
            UserPoolId=pool_id, ClientName="app", GenerateSecret=bool(pool.get("clientSecret")),
            ExplicitAuthFlows=["ALLOW_USER_PASSWORD_AUTH", "ALLOW_USER_SRP_AUTH",
                               "ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_CUSTOM_AUTH"])["UserPoolClient"]
        for user in users:
            attributes = [{"Name": k, "Value": v} for k, v in user.get("attributes", {}).items()]
            if user.get("temporaryPassword"):
                # The user must choose a password at first sign-in (NEW_PASSWORD_REQUIRED).
                idp.admin_create_user(UserPoolId=pool_id, Username=user["username"], UserAttributes=attributes,
                                      TemporaryPassword=user["temporaryPassword"], MessageAction="SUPPRESS")
                continue
            idp.admin_create_user(UserPoolId=pool_id, Username=user["username"],
                                  UserAttributes=attributes, MessageAction="SUPPRESS")
            idp.admin_set_user_password(UserPoolId=pool_id, Username=user["username"],
                                        Password=user["password"], Permanent=True)
            if user.get("mfa") == "sms":
                idp.admin_set_user_mfa_preference(UserPoolId=pool_id, Username=user["username"],
                                                  SMSMfaSettings={"Enabled": True, "PreferredMfa": True})
            elif user.get("mfa") == "totp":
                token = idp.admin_initiate_auth(
                    UserPoolId=pool_id, ClientId=app["ClientId"], AuthFlow="ADMIN_NO_SRP_AUTH",
                    AuthParameters=auth_parameters(user, app))["AuthenticationResult"]["AccessToken"]
                idp.associate_software_token(AccessToken=token)
                idp.verify_software_token(AccessToken=token, UserCode="123456")
                idp.admin_set_user_mfa_preference(UserPoolId=pool_id, Username=user["username"],
                                                  SoftwareTokenMfaSettings={"Enabled": True, "PreferredMfa": True})
        result.update(userPoolId=pool_id, clientId=app["ClientId"],
                      clientSecret=app.get("ClientSecret"))
    identity = spec.get("identityPool")
    if identity:
        providers = []
        if "clientId" in result:
            providers = [{"ProviderName": f"cognito-idp.{REGION}.amazonaws.com/{result['userPoolId']}",
                          "ClientId": result["clientId"]}]
        created = client("cognito-identity").create_identity_pool(
            IdentityPoolName=identity.get("name", "identities"),
            AllowUnauthenticatedIdentities=bool(identity.get("allowGuests", True)),
            CognitoIdentityProviders=providers)
        result["identityPoolId"] = created["IdentityPoolId"]
    for stream in spec.get("kinesisStreams", []):
        kinesis = client("kinesis")
        kinesis.create_stream(StreamName=stream, ShardCount=1)
    for stream in spec.get("firehoseStreams", []):
        s3 = client("s3")
        if stream["bucket"] not in [b["Name"] for b in s3.list_buckets().get("Buckets", [])]:
            s3.create_bucket(Bucket=stream["bucket"])
        client("firehose").create_delivery_stream(
            DeliveryStreamName=stream["name"], DeliveryStreamType="DirectPut",
            S3DestinationConfiguration={"RoleARN": "arn:aws:iam::123456789012:role/firehose",
                                        "BucketARN": f"arn:aws:s3:::{stream['bucket']}"})
    if spec.get("iamUser"):
        iam = client("iam")
        name = spec["iamUser"]
        iam.create_user(UserName=name)
        iam.put_user_policy(UserName=name, PolicyName="everything", PolicyDocument=json.dumps({
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName=name)["AccessKey"]
        result.update(accessKeyId=key["AccessKeyId"], secretAccessKey=key["SecretAccessKey"])
        credentials.update(aws_access_key_id=key["AccessKeyId"],
                           aws_secret_access_key=key["SecretAccessKey"])
    return result


def handle(command):
    op = command.get("op")
    if op == "reset":
        post("/moto-api/reset-auth", b"inf")
        credentials.update(aws_access_key_id="testing", aws_secret_access_key="testing")
        return post("/moto-api/reset")
    if op == "strict":
        return post("/moto-api/reset-auth", b"0" if command.get("on") else b"inf")
    if op == "seed":
        return seed(command)
    if op == "call":
        # Any boto3 call, for tests that act as an administrator (admin_delete_user, ...).
        answer = getattr(client(command["service"]), command["method"])(**command.get("arguments", {}))
        answer.pop("ResponseMetadata", None)
        return json.loads(json.dumps(answer, default=str))
    if op == "tokens":
        idp = client("cognito-idp")
        app = idp.describe_user_pool_client(UserPoolId=command["userPoolId"], ClientId=command["clientId"])["UserPoolClient"]
        return idp.admin_initiate_auth(
            UserPoolId=command["userPoolId"], ClientId=command["clientId"], AuthFlow="ADMIN_NO_SRP_AUTH",
            AuthParameters=auth_parameters(command, app))["AuthenticationResult"]
    raise ValueError(f"unknown op {op!r}")


def reply(value):
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


urllib.request.urlopen(ENDPOINT + "/moto-api/data.json", timeout=30).read()
reply({"port": PORT})
for line in sys.stdin:
    if not line.strip():
        continue
    try:
        reply({"ok": handle(json.loads(line))})
    except Exception as error:  # the Swift side turns this into a thrown error
        reply({"error": f"{type(error).__name__}: {error}"})
os._exit(0)
