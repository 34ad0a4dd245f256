"""The tests' AppSync stand-in: one asyncio server on 127.0.0.1 that answers GraphQL over HTTP
(POST /graphql) and AppSync's real-time WebSocket protocol (subprotocol graphql-ws, on /graphql and
/graphql/realtime) as AppSync does on the wire. Queries, mutations and subscriptions run for real
with graphql-core 3 against schema.graphql (beside this file, or --schema) or, with --models, against
the API the Amplify GraphQL transformer generates for a Gen 2 model_introspection (model_schema.py);
every request and connection is authorized for real. It prints "READY <port>" once listening and
serves until SIGTERM (or, with --exit-with-stdin, until standard input closes).

  appsync_server.py --port P [--host 127.0.0.1] [--schema F] [--region us-east-1]
      [--models INTROSPECTION.json [--conflict-detection]]  model mode: getX/listXs/index queries,
                                                             create/update/delete, onCreateX... over
                                                             in-memory tables (see model_schema.py);
                                                             conflict detection adds _version,
                                                             _deleted, _lastChangedAt and syncXs
      [--api-key KEY ...]                                    API_KEY: x-api-key compared
      [--jwks-url URL --user-pool-issuer ISS --user-pool-client-id ID ...]
                                                             AMAZON_COGNITO_USER_POOLS: RS256 JWTs
                                                             checked against the JWKS (moto's
                                                             /<poolId>/.well-known/jwks.json), iss,
                                                             aud (id) / client_id (access), token_use, exp
      [--iam-access-key AK --iam-secret-key SK [--iam-session-token T] ...]
                                                             AWS_IAM: SigV4 (service appsync) recomputed
                                                             with botocore over the request as received
      [--oidc-token T ...] [--lambda-token T ...]            OPENID_CONNECT / AWS_LAMBDA: compared
      [--default-auth MODE]                                  the mode for fields without auth directives
                                                             (default: the first configured, in the order above)
      [--tls-cert F --tls-key F]                             https/wss instead of http/ws
      [--ka-interval SECONDS] (60)  [--connection-timeout-ms MS] (300000)
      [--max-subscriptions N] (100 per connection)  [--exit-with-stdin]  [--verbose]

HTTP:
  POST /graphql            {query, variables, operationName}: {"data": ..., "errors": [...]} with
                           AppSync's error objects (path, data, errorType, errorInfo, locations with
                           sourceName, message; graphql-java wording for validation errors); a failing
                           field nulls only itself (partial data). Bad auth: 401
                           {"errors":[{"errorType":"UnauthorizedException","message":...}]} (IAM: 403
                           InvalidSignatureException / UnrecognizedClientException / IncompleteSignatureException),
                           with x-amzn-ErrorType. A successful mutation is published to the subscriptions
                           whose @aws_subscribe lists it, with the fields the mutation selected (others are null).
  GET  /health             200 {"status":"ok"}
Control (never stalled, never authorized):
  POST /control/reset                 clears the data (todos, model tables), the stall, the fail queue and
                                      restarts keep-alives
  POST /control/seed                  body {"Post": [records...], ...}: stores the records as given (replacing
                                      any of the same key; ids, timestamps and _version filled in when
                                      absent); without --models only "Todo". Answers {"ok", "seeded": counts}
  POST /control/drop                  closes every WebSocket abruptly (TCP closed, no close frame)
  POST /control/close?code=N&reason=R sends every WebSocket a close frame (default 1000)
  POST /control/stall?seconds=N[&count=K][&scope=http|ws|all]
                                      delays the next K answers (all, until seconds=0, without count)
                                      by N s: HTTP answers to /graphql, WebSocket handshake answers and
                                      replies to client messages (connection_ack, start_ack, error, complete)
  POST /control/stop-ka, /control/start-ka   stops / resumes "ka" on every connection
  POST /control/fail?status=S[&count=K][&errorType=T][&message=M]
                                      the next K (1) POST /graphql answer S with {"errors":[{errorType, message}]}
  POST /control/iam-credentials       body {"accessKeyId", "secretAccessKey", "sessionToken"?}: adds a key
                                      (e.g. identity-pool credentials that moto handed out)
  POST /control/burst?field=F&count=N[&name=X]   sends N data messages at once to every subscription
                                      to field F (with argument name X): {F: {id, name, description}},
                                      description the wall-clock ns the burst began; all are framed, then
                                      written at once, so the rate is the reader's (benchmarks)
  GET  /control/state                 {"connections", "subscriptions", "todos", "graphqlRequests", "kaStopped"}
                                      and, with --models, "models": {model name: record count}

Real-time (AWS's "real-time WebSocket client" guide): connection auth from a "header-<base64url JSON>"
subprotocol, the "?header=<base64 JSON>&payload=e30=" query, or plain headers on the upgrade request (IAM:
the headers of a signed POST <api path>/connect with body {}); bad connection auth gets connection_error
{"errors":[{"errorType":"UnauthorizedException","message":...,"errorCode":401}]} and a close.
connection_init -> connection_ack {"connectionTimeoutMs"}; "ka" right after it and every --ka-interval;
start {id, payload: {data: "<JSON>", extensions: {authorization}}} -> start_ack or error {id, payload:
{errors}} (UnauthorizedException, Unauthorized, validation messages, UnsupportedOperation,
MaxSubscriptionsReachedError, DuplicatedOperationError); data {id, payload: {data}} per matching mutation,
in order; stop -> complete. Arguments of a subscription field filter on the field of the same name;
"filter" takes Amplify's filter input. listTodos scans in insertion order and, like DynamoDB, applies
limit before filter (a page may be short with a nextToken).
"""
import argparse
import asyncio
import base64
import datetime
import email.utils
import hashlib
import hmac
import http
import inspect
import ipaddress
import json
import os
import re
import signal
import ssl
import sys
import threading
import time
import uuid
from urllib.parse import unquote, urlsplit, parse_qsl

# A parent that spawned us from a thread with signals blocked passes that mask on; take them back
# so the tests can stop the server by its PID.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

from graphql import (  # noqa: E402
    ExecutionResult, FieldNode, FragmentDefinitionNode, FragmentSpreadNode, GraphQLError,
    InlineFragmentNode, IntValueNode, MiddlewareManager, OperationDefinitionNode, OperationType,
    StringValueNode, build_schema, execute, get_operation_ast, parse, subscribe, validate,
)
from websockets.frames import Opcode  # noqa: E402
from websockets.protocol import State  # noqa: E402
from websockets.server import ServerProtocol  # noqa: E402

API_KEY, COGNITO, IAM, OIDC, LAMBDA = (
    "API_KEY", "AMAZON_COGNITO_USER_POOLS", "AWS_IAM", "OPENID_CONNECT", "AWS_LAMBDA")
MODE_OF_DIRECTIVE = {"aws_api_key": API_KEY, "aws_cognito_user_pools": COGNITO, "aws_auth": COGNITO,
                     "aws_iam": IAM, "aws_oidc": OIDC, "aws_lambda": LAMBDA}
NOT_AUTHORIZED = "You are not authorized to make this call."
COMPACT = (",", ":")


def log(*parts):
    if CONFIG.verbose:
        print(*parts, file=sys.stderr, flush=True)


def request_id():
    return str(uuid.uuid4())


def now_iso():
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


# --- AppSync's scalars -------------------------------------------------------------------------

PRELUDE_SCALARS = ["AWSDate", "AWSTime", "AWSDateTime", "AWSTimestamp", "AWSEmail", "AWSJSON",
                   "AWSURL", "AWSPhone", "AWSIPAddress"]
PRELUDE_DIRECTIVES = {
    "aws_subscribe": "directive @aws_subscribe(mutations: [String]) on FIELD_DEFINITION",
    "aws_api_key": "directive @aws_api_key on OBJECT | FIELD_DEFINITION",
    "aws_iam": "directive @aws_iam on OBJECT | FIELD_DEFINITION",
    "aws_cognito_user_pools": "directive @aws_cognito_user_pools(cognito_groups: [String]) on OBJECT | FIELD_DEFINITION",
    "aws_oidc": "directive @aws_oidc on OBJECT | FIELD_DEFINITION",
    "aws_lambda": "directive @aws_lambda on OBJECT | FIELD_DEFINITION",
    "aws_auth": "directive @aws_auth(cognito_groups: [String]) on FIELD_DEFINITION",
}
_OFFSET = r"(Z|[+-]\d{2}:\d{2}(:\d{2})?)"
_DATE = r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"
_TIME = r"([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?"
SCALAR_CHECKS = {
    "AWSDate": re.compile(f"^{_DATE}{_OFFSET}?$").match,
    "AWSTime": re.compile(f"^{_TIME}{_OFFSET}?$").match,
    "AWSDateTime": re.compile(f"^{_DATE}T{_TIME}{_OFFSET}$").match,
    "AWSEmail": re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$").match,
    "AWSPhone": re.compile(r"^\+?[\d\s().-]{5,}$").match,
    "AWSURL": lambda value: bool(re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", value))
    and bool(urlsplit(value).netloc or urlsplit(value).path),
}


def _ip(value):
    try:
        ipaddress.ip_network(value, strict=False)
        return True
    except ValueError:
        return False


SCALAR_CHECKS["AWSIPAddress"] = _ip


def assign(scalar, output, value, literal):
    # graphql-core 3.3 reads coerce_*; the legacy names are set too.
    scalar.serialize = scalar.coerce_output_value = output
    scalar.parse_value = scalar.coerce_input_value = value
    scalar.parse_literal = scalar.coerce_input_literal = literal


def install_scalars(schema):
    """Gives AppSync's scalars their validation; build_schema leaves custom scalars pass-through."""
    for name, check in SCALAR_CHECKS.items():
        scalar = schema.type_map.get(name)
        if scalar is None:
            continue

        def valid(value, name=name, check=check):
            if not isinstance(value, str) or not check(value):
                raise GraphQLError(f"Invalid {name} value: {json.dumps(value)}")
            return value

        def literal(node, _variables=None, name=name, valid=valid):
            if not isinstance(node, StringValueNode):
                raise GraphQLError(f"Invalid {name} literal")
            return valid(node.value)

        assign(scalar, valid, valid, literal)
    if "AWSTimestamp" in schema.type_map:
        def timestamp(value):
            if isinstance(value, bool) or not isinstance(value, int):
                raise GraphQLError(f"Invalid AWSTimestamp value: {json.dumps(value)}")
            return value

        def timestamp_literal(node, _variables=None):
            if not isinstance(node, IntValueNode):
                raise GraphQLError("Invalid AWSTimestamp literal")
            return int(node.value)

        assign(schema.type_map["AWSTimestamp"], timestamp, timestamp, timestamp_literal)
    if "AWSJSON" in schema.type_map:
        # Inputs are strings holding JSON (resolvers see the parsed value); outputs are JSON strings.
        def json_input(value):
            if not isinstance(value, str):
                raise GraphQLError("Invalid AWSJSON value: a string holding JSON is expected")
            try:
                return json.loads(value)
            except ValueError:
                raise GraphQLError(f"Invalid AWSJSON value: {json.dumps(value)} is not JSON")

        def json_output(value):
            if isinstance(value, str):
                try:
                    json.loads(value)
                    return value
                except ValueError:
                    pass
            return json.dumps(value, separators=COMPACT)

        def json_literal(node, _variables=None):
            if not isinstance(node, StringValueNode):
                raise GraphQLError("Invalid AWSJSON literal: a string holding JSON is expected")
            return json_input(node.value)

        assign(schema.type_map["AWSJSON"], json_output, json_input, json_literal)


def load_schema(path):
    with open(path, encoding="utf-8") as file:
        return schema_from_sdl(file.read())


def schema_from_sdl(sdl):
    """The schema of `sdl`, with AppSync's scalars and directives declared where it leaves them out."""
    prelude = [f"scalar {name}" for name in PRELUDE_SCALARS if not re.search(rf"\bscalar\s+{name}\b", sdl)]
    prelude += [text for name, text in PRELUDE_DIRECTIVES.items()
                if not re.search(rf"\bdirective\s+@{name}\b", sdl)]
    schema = build_schema("\n".join(prelude) + "\n" + sdl)
    install_scalars(schema)
    return schema


# --- Errors --------------------------------------------------------------------------------------

class AppSyncError(Exception):
    """A resolver error as $util.error raises it: message, errorType, data, errorInfo."""

    def __init__(self, message, error_type, data=None, error_info=None):
        super().__init__(message)
        self.message, self.error_type, self.data, self.error_info = message, error_type, data, error_info


class AuthError(Exception):
    def __init__(self, status, error_type, message):
        super().__init__(message)
        self.status, self.error_type, self.message = status, error_type, message


def locations_of(error):
    if not error.locations:
        return None
    return [{"line": where.line, "column": where.column, "sourceName": None} for where in error.locations]


_NON_NULL = re.compile(r"^Cannot return null for non-nullable field (\w+)\.(\w+)\.$")


def format_error(error):
    """An execution error the way AppSync writes it."""
    original = error.original_error
    if isinstance(original, AppSyncError):
        return {"path": error.path, "data": original.data, "errorType": original.error_type,
                "errorInfo": original.error_info, "locations": locations_of(error), "message": original.message}
    match = _NON_NULL.match(error.message)
    if match and error.path:
        parent = SCHEMA.type_map.get(match[1])
        field = parent.fields.get(match[2]) if parent is not None and hasattr(parent, "fields") else None
        inner = getattr(field.type, "of_type", field.type) if field else match[2]
        path = "/".join(str(part) for part in error.path)
        return {"path": error.path, "locations": None,
                "message": f"Cannot return null for non-nullable type: '{inner}' within parent '{match[1]}' (/{path})"}
    if original is not None and not isinstance(original, GraphQLError):
        return {"path": error.path, "data": None, "errorType": "InternalFailure", "errorInfo": None,
                "locations": locations_of(error), "message": str(original)}
    return {"path": error.path, "locations": locations_of(error), "message": variable_message(error.message)}


def variable_message(message):
    """graphql-core's variable coercion messages for unknown and missing input fields, reworded as
    AppSync's (graphql-java's); others as they are."""
    unknown = re.match(r"Variable '\$(\w+)' has invalid value(?: at [^:]+)?: Expected value of type '(\w+)' not to "
                       r"include unknown field '(\w+)'", message)
    if unknown:
        return (f"Variable '{unknown[1]}' has an invalid value: The variables input contains a field name "
                f"'{unknown[3]}' that is not defined for input object type '{unknown[2]}' ")
    missing = re.match(r"Variable '\$(\w+)' has invalid value(?: at [^:]+)?: Expected value of type '(\w+)' to "
                       r"include required field '(\w+)'", message)
    if missing:
        parent = SCHEMA.type_map.get(missing[2])
        field = getattr(parent, "fields", {}).get(missing[3])
        return f"Variable '{missing[1]}' has coerced Null value for NonNull type '{field.type if field else missing[3]}'"
    null = re.match(r"Variable '\$(\w+)' has invalid value(?: at [^:]+)?: Expected value of non-null type '([^']+)' "
                    r"not to be None", message)
    if null:
        return f"Variable '{null[1]}' has coerced Null value for NonNull type '{null[2]}'"
    return message


# graphql-core's validation messages, reworded as AppSync's (graphql-java's).
VALIDATION_WORDING = [
    (r"Cannot query field '(\w+)' on type '(\w+)'\.", "FieldUndefined: Field '{1}' in type '{2}' is undefined{at}"),
    (r"Unknown argument '(\w+)' on field '(\w+)\.(\w+)'\.", "UnknownArgument: Unknown field argument {1}{at}"),
    (r"Argument '\w+\.(\w+)\((\w+):\)' of type '.+?' is required, but it was not provided\.",
     "MissingFieldArgument: Missing field argument {2}{at}"),
    (r"Field '(\w+)' argument '(\w+)' of type '.+?' is required, but it was not provided\.",
     "MissingFieldArgument: Missing field argument {2}{at}"),
    (r"Expected value of type '(.+?)' to include required field '(\w+)'",
     "WrongType: argument value is missing the required field '{2}' of '{1}'{at}"),
    (r"Expected value of type '(.+?)' not to include unknown field '(\w+)'",
     "WrongType: argument value contains the field '{2}', which is not in '{1}'{at}"),
    (r"Variable '\$(\w+)' is not defined", "UndefinedVariable: Undefined variable {1}{at}"),
    (r"Variable '\$(\w+)' is never used", "UnusedVariable: Unused variable {1}"),
    (r"Field '(\w+)' of type '(.+?)' must have a selection of subfields",
     "SubSelectionRequired: Sub selection required for type {2} of field {1}{at}"),
    (r"Field '(\w+)' must not have a selection since type '(.+?)' has no subfields",
     "SubSelectionNotAllowed: Sub selection not allowed on leaf type {2} of field {1}{at}"),
    (r"Unknown type '(\w+)'", "UnknownType: Unknown type {1}"),
    (r"Unknown fragment '(\w+)'", "UndefinedFragment: Undefined fragment {1}"),
    (r"Variable '\$(\w+)' of type '(.+?)' used in position expecting type '(.+?)'",
     "VariableTypeMismatch: Variable type '{2}' doesn't match expected type '{3}'{at}"),
]


def node_paths(document):
    """Maps each field and argument node to its field path ("getTodo/name"), as graphql-java names it."""
    paths = {}
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}

    def walk(selection_set, prefix, seen):
        for node in selection_set.selections if selection_set else []:
            if isinstance(node, FieldNode):
                path = prefix + [node.name.value]
                paths[id(node)] = "/".join(path)
                for argument in node.arguments or []:
                    paths[id(argument)] = "/".join(path)
                walk(node.selection_set, path, seen)
            elif isinstance(node, InlineFragmentNode):
                walk(node.selection_set, prefix, seen)
            elif isinstance(node, FragmentSpreadNode) and node.name.value not in seen:
                fragment = fragments.get(node.name.value)
                if fragment:
                    walk(fragment.selection_set, prefix, seen | {node.name.value})

    for definition in document.definitions:
        if isinstance(definition, (OperationDefinitionNode, FragmentDefinitionNode)):
            walk(definition.selection_set, [], frozenset())
    return paths


def validation_message(error, paths):
    path = next((paths[id(node)] for node in error.nodes or [] if id(node) in paths), None)
    at = f" @ '{path}'" if path else ""
    for pattern, wording in VALIDATION_WORDING:
        match = re.match(pattern, error.message)
        if match:
            return "Validation error of type " + re.sub(
                r"\{(\d+|at)\}", lambda m: at if m[1] == "at" else match[int(m[1])], wording)
    return error.message


def syntax_message(error):
    match = re.search(r"(?:found|Unexpected) (.+?)\.?$", error.message)
    token = match[1].strip("'\"") if match else "<EOF>"
    where = error.locations[0] if error.locations else None
    return (f"Invalid Syntax : offending token '{token}' at line {where.line if where else 1} "
            f"column {where.column if where else 1}")


# --- Data and resolvers --------------------------------------------------------------------------

TODOS = {}


def condition_failed():
    return AppSyncError(f"The conditional request failed (Service: DynamoDb, Status Code: 400, Request ID: "
                        f"{uuid.uuid4().hex.upper()[:32]})", "DynamoDB:ConditionalCheckFailedException")


def value_matches(value, condition):
    for operator, argument in condition.items():
        if argument is None:
            continue
        try:
            if operator == "attributeExists":
                ok = (value is not None) == argument
            elif value is None:
                ok = operator in ("ne", "notContains")
            elif operator == "eq":
                ok = value == argument
            elif operator == "ne":
                ok = value != argument
            elif operator == "lt":
                ok = value < argument
            elif operator == "le":
                ok = value <= argument
            elif operator == "gt":
                ok = value > argument
            elif operator == "ge":
                ok = value >= argument
            elif operator == "between":
                ok = len(argument) == 2 and argument[0] <= value <= argument[1]
            elif operator == "contains":
                ok = argument in value
            elif operator == "notContains":
                ok = argument not in value
            elif operator == "beginsWith":
                ok = isinstance(value, str) and value.startswith(argument)
            else:
                ok = False
        except TypeError:
            ok = False
        if not ok:
            return False
    return True


def matches(item, model_filter):
    """Amplify's ModelXFilterInput / ConditionInput: and, or, not and per-field operators."""
    for key, condition in (model_filter or {}).items():
        if condition is None:
            continue
        if key == "and":
            ok = all(matches(item, part) for part in condition)
        elif key == "or":
            ok = any(matches(item, part) for part in condition)
        elif key == "not":
            ok = not matches(item, condition)
        else:
            ok = value_matches(item.get(key), condition)
        if not ok:
            return False
    return True


def resolve_get_todo(_root, _info, id):
    item = TODOS.get(id)
    return dict(item) if item else None


def resolve_list_todos(_root, _info, filter=None, limit=None, nextToken=None):
    start = 0
    if nextToken:
        try:
            start = int(base64.b64decode(nextToken).decode().split(":", 1)[1])
        except (ValueError, IndexError, UnicodeDecodeError):
            raise AppSyncError("Invalid pagination token given.", "DynamoDB:DynamoDbException")
    limit = 100 if limit is None else limit
    if limit <= 0:
        raise AppSyncError("Limit must be greater than zero.", "DynamoDB:DynamoDbException")
    scanned = list(TODOS.values())[start:start + limit]
    end = start + len(scanned)
    token = base64.b64encode(f"scan:{end}".encode()).decode() if end < len(TODOS) else None
    return {"items": [dict(item) for item in scanned if matches(item, filter)], "nextToken": token}


def resolve_create_todo(_root, info, input, condition=None):
    item = {key: value for key, value in input.items()}
    item["id"] = item.get("id") or str(uuid.uuid4())
    if item["id"] in TODOS or (condition and not matches({}, condition)):
        raise condition_failed()
    if item.get("owner") is None and info.context.identity.username:
        item["owner"] = info.context.identity.username
    item["createdAt"] = item["updatedAt"] = now_iso()
    TODOS[item["id"]] = item
    return dict(item)


def resolve_update_todo(_root, _info, input, condition=None):
    item = TODOS.get(input["id"])
    if item is None or (condition and not matches(item, condition)):
        raise condition_failed()
    item.update(input)
    item["updatedAt"] = now_iso()
    return dict(item)


def resolve_delete_todo(_root, _info, input, condition=None):
    item = TODOS.get(input["id"])
    if item is None or (condition and not matches(item, condition)):
        raise condition_failed()
    del TODOS[input["id"]]
    return dict(item)


def resolve_error_todo(_root, _info, id=None):
    raise AppSyncError(f"Todo {id} could not be read", "CustomError")


def resolve_failing_field(_root, _info):
    raise AppSyncError("failingField always fails", "CustomError")


def resolve_who_am_i(_root, info):
    identity = info.context.identity
    return {"authMode": identity.mode, "username": identity.username, "sub": identity.sub,
            "groups": identity.groups, "claims": identity.claims}


RESOLVERS = {
    ("Query", "getTodo"): resolve_get_todo,
    ("Query", "listTodos"): resolve_list_todos,
    ("Query", "errorTodo"): resolve_error_todo,
    ("Query", "whoAmI"): resolve_who_am_i,
    ("Query", "iamOnlyNote"): lambda _root, _info: "only IAM callers read this",
    ("Query", "adminNote"): lambda _root, _info: "only admins read this",
    ("Mutation", "createTodo"): resolve_create_todo,
    ("Mutation", "updateTodo"): resolve_update_todo,
    ("Mutation", "deleteTodo"): resolve_delete_todo,
    ("Todo", "failingField"): resolve_failing_field,
}


# --- Authorization -------------------------------------------------------------------------------

class Identity:
    def __init__(self, mode, username=None, sub=None, groups=None, claims=None):
        self.mode, self.username, self.sub, self.groups, self.claims = mode, username, sub, groups, claims


def configured_modes():
    modes = []
    if CONFIG.api_key:
        modes.append(API_KEY)
    if CONFIG.jwks_url:
        modes.append(COGNITO)
    if IAM_KEYS:
        modes.append(IAM)
    if CONFIG.oidc_token:
        modes.append(OIDC)
    if CONFIG.lambda_token:
        modes.append(LAMBDA)
    return modes


_JWKS = {}


def verify_user_pool_token(token):
    import jwt
    try:
        jwt.get_unverified_header(token)
        jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        raise AuthError(401, "UnauthorizedException", "Unable to parse JWT token.")
    try:
        if "client" not in _JWKS:
            _JWKS["client"] = jwt.PyJWKClient(CONFIG.jwks_url, cache_keys=True)
        key = _JWKS["client"].get_signing_key_from_jwt(token)
        claims = jwt.decode(token, key.key, algorithms=["RS256"], issuer=CONFIG.user_pool_issuer,
                            options={"verify_aud": False, "require": ["exp", "iss", "token_use"]})
    except jwt.ExpiredSignatureError:
        raise AuthError(401, "UnauthorizedException", "Token has expired.")
    except jwt.PyJWTError as error:
        log("user pool token refused:", error)
        raise AuthError(401, "UnauthorizedException", NOT_AUTHORIZED)
    use = claims.get("token_use")
    client = claims.get("aud") if use == "id" else claims.get("client_id") if use == "access" else None
    if client is None or (CONFIG.user_pool_client_id and client not in CONFIG.user_pool_client_id):
        log("user pool token refused: token_use", use, "client", client)
        raise AuthError(401, "UnauthorizedException", NOT_AUTHORIZED)
    groups = claims.get("cognito:groups") or []
    username = claims.get("cognito:username") or claims.get("username")
    return Identity(COGNITO, username, claims.get("sub"), groups, claims)


_SIGV4 = re.compile(r"^AWS4-HMAC-SHA256\s+Credential=([^,\s]+)\s*,\s*SignedHeaders=([^,\s]+)\s*,\s*Signature=([0-9a-fA-F]+)\s*$")


def verify_sigv4(headers, method, target, body):
    """Recomputes the signature with botocore over the request as received (only the headers it
    says it signed) and compares."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.compat import HTTPHeaders
    from botocore.credentials import Credentials

    def refuse(error_type, message, status=403):
        raise AuthError(status, error_type, message)

    match = _SIGV4.match(headers.get("authorization", ""))
    if not match:
        refuse("IncompleteSignatureException", "Authorization header requires 'Credential', 'SignedHeaders' "
               f"and 'Signature' parameters. Authorization={headers.get('authorization', '')}")
    scope = match[1].split("/")
    if len(scope) != 5 or scope[4] != "aws4_request":
        refuse("IncompleteSignatureException", f"Credential should be scoped correctly: '{match[1]}'.")
    access_key, day, region, service, _ = scope
    if access_key not in IAM_KEYS:
        refuse("UnrecognizedClientException", "The security token included in the request is invalid.")
    secret, token = IAM_KEYS[access_key]
    if service != "appsync":
        refuse("InvalidSignatureException", "Credential should be scoped to correct service: 'appsync'.")
    if region != CONFIG.region:
        refuse("InvalidSignatureException", f"Credential should be scoped to a valid region, not '{region}'.")
    amz_date = headers.get("x-amz-date", "")
    try:
        signed_at = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        refuse("IncompleteSignatureException", "Authorization header requires existence of either a "
               "'X-Amz-Date' or a 'Date' header.")
    if amz_date[:8] != day:
        refuse("InvalidSignatureException", f"Date in Credential scope does not match YYYYMMDD from ISO-8601 "
               f"version of date from HTTP: '{day}' != '{amz_date[:8]}', from '{amz_date}'.")
    now = datetime.datetime.now(datetime.timezone.utc)
    stamp = lambda moment: moment.strftime("%Y%m%dT%H%M%SZ")  # noqa: E731
    skew = datetime.timedelta(minutes=15)
    if signed_at < now - skew:
        refuse("InvalidSignatureException", f"Signature expired: {amz_date} is now earlier than "
               f"{stamp(now - skew)} ({stamp(now)} - 15 min.)")
    if signed_at > now + skew:
        refuse("InvalidSignatureException", f"Signature not yet current: {amz_date} is still later than "
               f"{stamp(now + skew)} ({stamp(now)} + 15 min.)")
    signed = match[2].lower().split(";")
    if "host" not in signed:
        refuse("InvalidSignatureException", "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.")
    if token is not None and headers.get("x-amz-security-token") != token:
        refuse("UnrecognizedClientException", "The security token included in the request is invalid.")
    sha = headers.get("x-amz-content-sha256")
    if sha is not None and sha != hashlib.sha256(body).hexdigest():
        refuse("InvalidSignatureException", "The provided 'x-amz-content-sha256' header does not match what was computed.")

    class Recomputed(SigV4Auth):
        def headers_to_sign(self, request):
            chosen = HTTPHeaders()
            for name in signed:
                if name in headers:
                    chosen[name] = headers[name]
            return chosen

    values = {name: headers[name] for name in signed if name in headers}
    request = AWSRequest(method=method, url="https://" + headers.get("host", "localhost") + target,
                         headers=values, data=body)
    request.context["timestamp"] = amz_date
    signer = Recomputed(Credentials(access_key, secret, token), "appsync", CONFIG.region)
    canonical = signer.canonical_request(request)
    to_sign = signer.string_to_sign(request, canonical)
    expected = signer.signature(to_sign, request)
    if not hmac.compare_digest(expected, match[3].lower()):
        refuse("InvalidSignatureException", "The request signature we calculated does not match the signature "
               "you provided. Check your AWS Secret Access Key and signing method. Consult the service "
               f"documentation for details.\n\nThe Canonical String for this request should have been\n'{canonical}'"
               f"\n\nThe String-to-Sign should have been\n'{to_sign}'\n")
    return Identity(IAM, access_key, None, None, {"accessKey": access_key,
                                                   "userArn": f"arn:aws:iam::123456789012:user/{access_key}"})


async def authenticate(headers, method, target, body):
    """headers: lower-case names to values. Picks the mode the way AppSync does (the Authorization
    header's form, else x-api-key) and checks it for real."""
    modes = configured_modes()
    authorization = headers.get("authorization")
    if authorization is not None:
        if authorization.startswith("AWS4-HMAC-SHA256"):
            if IAM not in modes:
                raise AuthError(401, "UnauthorizedException", NOT_AUTHORIZED)
            return verify_sigv4(headers, method, target, body)
        if not authorization.strip():
            raise AuthError(401, "UnauthorizedException", "Valid authorization header not provided.")
        if authorization in (CONFIG.oidc_token or []):
            return Identity(OIDC, "oidc-user", "oidc-user", None, {"token": "oidc"})
        if authorization in (CONFIG.lambda_token or []):
            return Identity(LAMBDA, "lambda-user", None, None, {"token": "lambda"})
        if COGNITO in modes and authorization.count(".") == 2:
            return await asyncio.to_thread(verify_user_pool_token, authorization)
        if COGNITO in modes and LAMBDA not in modes and OIDC not in modes:
            raise AuthError(401, "UnauthorizedException", "Unable to parse JWT token.")
        raise AuthError(401, "UnauthorizedException", NOT_AUTHORIZED)
    key = headers.get("x-api-key")
    if key is not None:
        if API_KEY in modes and key in CONFIG.api_key:
            return Identity(API_KEY)
        raise AuthError(401, "UnauthorizedException", NOT_AUTHORIZED)
    raise AuthError(401, "UnauthorizedException", "Missing authorization header")


def directive_modes(node):
    modes = {}
    for directive in (node.directives if node is not None else None) or []:
        mode = MODE_OF_DIRECTIVE.get(directive.name.value)
        if mode is None:
            continue
        groups = None
        for argument in directive.arguments or []:
            if argument.name.value == "cognito_groups":
                groups = [value.value for value in getattr(argument.value, "values", [])]
        modes[mode] = groups
    return modes


def allowed_modes(parent_type, field_name):
    key = (parent_type.name, field_name)
    if key not in ALLOWED:
        field = parent_type.fields[field_name]
        modes = directive_modes(field.ast_node)
        if not modes:
            for node in [parent_type.ast_node] + list(parent_type.extension_ast_nodes or []):
                modes.update(directive_modes(node))
        ALLOWED[key] = modes or {CONFIG.default_auth: None}
    return ALLOWED[key]


def check_field(parent_type, field_name, identity):
    modes = allowed_modes(parent_type, field_name)
    ok = identity.mode in modes
    groups = modes.get(identity.mode)
    if ok and groups:
        ok = bool(set(groups) & set(identity.groups or []))
    if not ok:
        raise AppSyncError(f"Not Authorized to access {field_name} on type {parent_type.name}", "Unauthorized")


def auth_middleware(next_, root, info, **args):
    if not info.field_name.startswith("__"):
        check_field(info.parent_type, info.field_name, info.context.identity)
    return next_(root, info, **args)


# --- Execution -----------------------------------------------------------------------------------

class Context:
    def __init__(self, identity, subscription=None):
        self.identity, self.subscription = identity, subscription


def root_fields(selection_set, fragments):
    for node in selection_set.selections:
        if isinstance(node, FieldNode):
            yield node
        elif isinstance(node, InlineFragmentNode):
            yield from root_fields(node.selection_set, fragments)
        elif isinstance(node, FragmentSpreadNode) and node.name.value in fragments:
            yield from root_fields(fragments[node.name.value].selection_set, fragments)


def dealias(selection_set, value, fragments):
    """The executed result keyed by field names instead of response keys."""
    if value is None or selection_set is None:
        return value
    if isinstance(value, list):
        return [dealias(selection_set, item, fragments) for item in value]
    out = {}
    for node in root_fields(selection_set, fragments):
        key = node.alias.value if node.alias else node.name.value
        if key in value:
            out[node.name.value] = dealias(node.selection_set, value[key], fragments)
    return out


async def run_graphql(request, identity):
    query, variables = request.get("query"), request.get("variables") or {}
    operation_name = request.get("operationName")
    if not isinstance(query, str) or not isinstance(variables, dict) or not isinstance(operation_name, (str, type(None))):
        return None
    try:
        document = parse(query)
    except GraphQLError as error:
        return {"data": None, "errors": [{"path": None, "locations": locations_of(error), "message": syntax_message(error)}]}
    errors = validate(SCHEMA, document)
    if errors:
        paths = node_paths(document)
        return {"data": None, "errors": [{"path": None, "locations": locations_of(error),
                                          "message": validation_message(error, paths)} for error in errors]}
    operation = get_operation_ast(document, operation_name)
    if operation is not None and operation.operation == OperationType.SUBSCRIPTION:
        return {"data": None, "errors": [{"errorType": "UnsupportedOperation", "message":
                                          "Subscriptions are served on the real-time endpoint"}]}
    result = execute(SCHEMA, document, variable_values=variables, operation_name=operation_name,
                     context_value=Context(identity), middleware=MIDDLEWARE)
    if inspect.isawaitable(result):
        result = await result
    if operation is not None and operation.operation == OperationType.MUTATION and result.data:
        fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
        for node in root_fields(operation.selection_set, fragments):
            key = node.alias.value if node.alias else node.name.value
            if result.data.get(key) is not None:
                publish(node.name.value, dealias(node.selection_set, result.data[key], fragments))
    answer = {"data": result.data}
    if result.errors:
        answer["errors"] = [format_error(error) for error in result.errors]
    return answer


# --- Subscriptions -------------------------------------------------------------------------------

SUBSCRIPTIONS = {}  # (connection id, subscription id) -> Subscription, in start order


class Subscription:
    def __init__(self, sid, connection):
        self.id, self.connection = sid, connection
        self.field, self.args, self.mutations = None, {}, []
        self.queue = asyncio.Queue()
        self.task = self.stream = None

    def accepts(self, payload):
        for name, value in self.args.items():
            if value is None:
                continue
            if name == "filter":
                if not (MODELS.matches if MODELS else matches)(payload, value):
                    return False
            elif payload.get(name) != value and not (isinstance(payload.get(name), list) and value in payload[name]):
                return False  # an argument matches its field (or one of a list's values, as multi-owner fields)
        return True


def publish(mutation, payload):
    for subscription in list(SUBSCRIPTIONS.values()):
        if mutation in subscription.mutations and subscription.accepts(payload):
            subscription.queue.put_nowait(payload)


def subscribe_resolver(field_name):
    def start(_root, info, **args):
        subscription = info.context.subscription
        subscription.field, subscription.args = field_name, args
        subscription.mutations = SUBSCRIBED_MUTATIONS.get(field_name, [])

        async def events():
            while True:
                yield await subscription.queue.get()

        return events()
    return start


def install_resolvers(schema, resolvers=RESOLVERS):
    for (type_name, field_name), resolver in resolvers.items():
        parent = schema.type_map.get(type_name)
        if parent is not None and field_name in getattr(parent, "fields", {}):
            parent.fields[field_name].resolve = resolver
    mutations = {}
    if schema.subscription_type:
        for name, field in schema.subscription_type.fields.items():
            for directive in field.ast_node.directives if field.ast_node else []:
                if directive.name.value == "aws_subscribe":
                    for argument in directive.arguments:
                        if argument.name.value == "mutations":
                            mutations[name] = [v.value for v in getattr(argument.value, "values", [])]
            field.subscribe = subscribe_resolver(name)
            field.resolve = lambda payload, _info, **_args: payload
    return mutations


# --- Control state -------------------------------------------------------------------------------

class Stall:
    seconds, remaining, scope = 0.0, None, "all"

    async def wait(self, kind):
        if self.seconds <= 0 or self.scope not in ("all", kind):
            return
        if self.remaining is not None:
            if self.remaining <= 0:
                return
            self.remaining -= 1
        await asyncio.sleep(self.seconds)


STALL = Stall()
FAILS = []  # (status, errorType, message) for the next POST /graphql answers
STATE = {"kaStopped": False, "graphqlRequests": 0}
CONNECTIONS = set()


# --- WebSocket connections -----------------------------------------------------------------------

class Connection:
    def __init__(self, writer, protocol, api_path):
        self.writer, self.protocol, self.api_path = writer, protocol, api_path
        self.subscriptions, self.ka_task, self.closed = {}, None, False

    def flush(self):
        for data in self.protocol.data_to_send():
            if self.writer.is_closing():
                return
            if data:
                self.writer.write(data)
            elif self.writer.can_write_eof():
                self.writer.write_eof()
            else:
                self.writer.close()

    def send(self, message):
        if self.closed or self.protocol.state is not State.OPEN:
            return
        log("ws >", message)
        self.protocol.send_text(json.dumps(message, separators=COMPACT).encode())
        self.flush()

    def error(self, sid, errors):
        message = {"type": "error", "payload": {"errors": errors}}
        if sid is not None:
            message["id"] = sid
        self.send(message)

    def drop_subscription(self, sid):
        subscription = self.subscriptions.pop(sid, None)
        if subscription is None:
            return
        SUBSCRIPTIONS.pop((id(self), sid), None)
        if subscription.task:
            subscription.task.cancel()

    def cleanup(self):
        self.closed = True
        for sid in list(self.subscriptions):
            self.drop_subscription(sid)
        if self.ka_task:
            self.ka_task.cancel()
        CONNECTIONS.discard(self)


async def keep_alive(connection):
    while not connection.closed:
        if not STATE["kaStopped"]:
            connection.send({"type": "ka"})
        await asyncio.sleep(CONFIG.ka_interval)


async def pump(connection, subscription, stream):
    try:
        async for result in stream:
            payload = {"data": result.data}
            if result.errors:
                payload["errors"] = [format_error(error) for error in result.errors]
            connection.send({"type": "data", "id": subscription.id, "payload": payload})
    finally:
        await stream.aclose()


def decode_header_json(text, urlsafe):
    text = text.strip().replace(" ", "+")
    padded = text + "=" * (-len(text) % 4)
    raw = base64.urlsafe_b64decode(padded) if urlsafe else base64.b64decode(padded.replace("-", "+").replace("_", "/"))
    value = json.loads(raw)
    if not isinstance(value, dict):
        raise ValueError("the header is not a JSON object")
    return {str(k).lower(): str(v) for k, v in value.items()}


def connection_auth_headers(target, headers, offered):
    """The connection's auth headers: a header- subprotocol, else the header query, else the
    upgrade request's own headers."""
    for protocol in offered:
        if protocol.startswith("header-"):
            return decode_header_json(protocol[len("header-"):], urlsafe=True)
    query = target.partition("?")[2]
    for part in query.split("&"):
        name, _, value = part.partition("=")
        if name == "header" and value:
            return decode_header_json(unquote(value), urlsafe=False)
    return {name: values[0] for name, values in headers.items()}


async def handle_message(connection, identity, text):
    try:
        message = json.loads(text)
        kind = message.get("type") if isinstance(message, dict) else None
    except ValueError:
        message, kind = {}, None
    log("ws <", text[:500])
    if kind == "connection_init":
        await STALL.wait("ws")
        connection.send({"type": "connection_ack", "payload": {"connectionTimeoutMs": CONFIG.connection_timeout_ms}})
        if connection.ka_task is None:
            connection.ka_task = asyncio.ensure_future(keep_alive(connection))
    elif kind == "start":
        await STALL.wait("ws")
        await handle_start(connection, message)
    elif kind == "stop":
        await STALL.wait("ws")
        sid = message.get("id")
        connection.drop_subscription(sid)
        connection.send({"type": "complete", "id": sid})
    else:
        await STALL.wait("ws")
        connection.error(None, [{"errorType": "UnsupportedOperation",
                                 "message": "unknown not supported through the realtime channel"}])


async def handle_start(connection, message):
    sid = message.get("id")
    payload = message.get("payload") if isinstance(message.get("payload"), dict) else {}
    if not isinstance(sid, str) or not sid:
        connection.error(None, [{"errorType": "BadRequestException", "message": "Subscription id is required"}])
        return
    data_text = payload.get("data")
    try:
        request = json.loads(data_text) if isinstance(data_text, str) else None
    except ValueError:
        request = None
    if not isinstance(request, dict) or not isinstance(request.get("query"), str):
        connection.error(sid, [{"errorType": "BadRequestException",
                                "message": "payload.data must be a JSON string with a query"}])
        return
    authorization = (payload.get("extensions") or {}).get("authorization")
    try:
        if not isinstance(authorization, dict):
            raise AuthError(401, "UnauthorizedException", "Missing authorization header")
        headers = {str(k).lower(): str(v) for k, v in authorization.items()}
        identity = await authenticate(headers, "POST", connection.api_path, data_text.encode())
    except AuthError as error:
        connection.error(sid, [{"errorType": "UnauthorizedException", "message": error.message}])
        return
    try:
        document = parse(request["query"])
    except GraphQLError as error:
        connection.error(sid, [{"message": syntax_message(error)}])
        return
    errors = validate(SCHEMA, document)
    if errors:
        paths = node_paths(document)
        connection.error(sid, [{"message": validation_message(error, paths)} for error in errors])
        return
    operation = get_operation_ast(document, request.get("operationName"))
    if operation is None or operation.operation != OperationType.SUBSCRIPTION:
        kind = operation.operation.value if operation is not None else "unknown"
        connection.error(sid, [{"errorType": "UnsupportedOperation",
                                "message": f"{kind} not supported through the realtime channel"}])
        return
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    for node in root_fields(operation.selection_set, fragments):
        if node.name.value.startswith("__"):
            continue
        try:
            check_field(SCHEMA.subscription_type, node.name.value, identity)
        except AppSyncError as error:
            connection.error(sid, [{"errorType": error.error_type, "message": error.message}])
            return
    if sid in connection.subscriptions:
        connection.error(sid, [{"errorType": "DuplicatedOperationError",
                                "message": f"Duplicated operation with id {sid}"}])
        return
    if len(connection.subscriptions) >= CONFIG.max_subscriptions:
        connection.error(sid, [{"errorType": "MaxSubscriptionsReachedError",
                                "message": f"Max number of {CONFIG.max_subscriptions} subscriptions reached"}])
        return
    subscription = Subscription(sid, connection)
    variables = request.get("variables") or {}
    stream = subscribe(SCHEMA, document, variable_values=variables if isinstance(variables, dict) else {},
                       operation_name=request.get("operationName"),
                       context_value=Context(identity, subscription), middleware=MIDDLEWARE)
    if inspect.isawaitable(stream):
        stream = await stream
    if isinstance(stream, ExecutionResult):
        connection.error(sid, [{"message": error.message} for error in stream.errors or []])
        return
    connection.subscriptions[sid] = subscription
    SUBSCRIPTIONS[(id(connection), sid)] = subscription
    connection.send({"type": "start_ack", "id": sid})
    subscription.task = asyncio.ensure_future(pump(connection, subscription, stream))


async def websocket_session(reader, writer, head, target, headers):
    offered = [p.strip() for value in headers.get("sec-websocket-protocol", []) for p in value.split(",")]
    protocol = ServerProtocol(select_subprotocol=lambda _p, offered: "graphql-ws" if "graphql-ws" in offered else None,
                              max_size=1 << 20)
    protocol.receive_data(head)
    request = protocol.events_received()[0]
    path = target.partition("?")[0].rstrip("/")
    api_path = path[:-len("/realtime")] if path.endswith("/realtime") else path
    if "graphql-ws" not in offered:
        response = protocol.reject(400, "The graphql-ws subprotocol is required.\n")
    elif not path.endswith("/graphql") and not path.endswith("/realtime"):
        response = protocol.reject(404, "Not Found\n")
    else:
        response = protocol.accept(request)
    await STALL.wait("ws")
    connection = Connection(writer, protocol, api_path)
    protocol.send_response(response)
    connection.flush()
    if response.status_code != 101:
        await writer.drain()
        return
    CONNECTIONS.add(connection)
    try:
        try:
            auth_headers = connection_auth_headers(target, headers, offered)
            identity = await authenticate(auth_headers, "POST", api_path + "/connect", b"{}")
        except (ValueError, UnicodeDecodeError):
            identity = AuthError(400, "UnauthorizedException", "The connection header could not be decoded.")
        except AuthError as error:
            identity = error
        if isinstance(identity, AuthError):
            log("ws connection refused:", identity.message)
            connection.send({"type": "connection_error", "payload": {"errors": [{
                "errorType": "UnauthorizedException", "message": identity.message, "errorCode": 401}]}})

            def close():
                if protocol.state is State.OPEN:
                    protocol.send_close(1000, "")
                    connection.flush()
            # A second's grace, so that a connection_init already on its way is still written.
            asyncio.get_running_loop().call_later(1.0, close)
        fragments = []
        while True:
            data = await reader.read(65536)
            if data:
                protocol.receive_data(data)
            else:
                protocol.receive_eof()
            for event in protocol.events_received():
                if getattr(event, "opcode", None) in (Opcode.TEXT, Opcode.CONT):
                    fragments.append(event.data)
                    if event.fin:
                        text = b"".join(fragments).decode("utf-8", "replace")
                        fragments = []
                        if not isinstance(identity, AuthError) and protocol.state is State.OPEN:
                            try:
                                await handle_message(connection, identity, text)
                            except Exception as error:  # a bug here must not kill the connection silently
                                print(f"appsync_server: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
                                connection.error(None, [{"errorType": "InternalFailure", "message": str(error)}])
            connection.flush()
            if not data or protocol.state is State.CLOSED:
                break
    finally:
        connection.cleanup()
        writer.close()


# --- HTTP ----------------------------------------------------------------------------------------

def render(status, body, keep_alive, extra=None):
    headers = [("Date", email.utils.formatdate(usegmt=True)), ("Content-Type", "application/json; charset=UTF-8"),
               ("Content-Length", str(len(body))), ("Connection", "keep-alive" if keep_alive else "close"),
               ("x-amzn-RequestId", request_id())] + list(extra or [])
    lines = [f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}"] + [f"{k}: {v}" for k, v in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def error_answer(status, error_type, message):
    body = json.dumps({"errors": [{"errorType": error_type, "message": message}]}, separators=COMPACT).encode()
    return status, body, [("x-amzn-ErrorType", error_type)]


def json_answer(value, status=200):
    return status, json.dumps(value, separators=COMPACT).encode(), []


async def control(method, path, query, body):
    name = path[len("/control/"):]
    if method == "GET" and name == "state":
        state = {"connections": len(CONNECTIONS), "subscriptions": len(SUBSCRIPTIONS), "todos": len(TODOS),
                 "graphqlRequests": STATE["graphqlRequests"], "kaStopped": STATE["kaStopped"]}
        if MODELS:
            state["models"] = MODELS.api.counts()
        return json_answer(state)
    if method != "POST":
        return error_answer(405, "MethodNotAllowed", "control endpoints take POST")
    if name == "reset":
        TODOS.clear()
        if MODELS:
            MODELS.api.reset()
        FAILS.clear()
        STALL.seconds, STALL.remaining, STALL.scope = 0.0, None, "all"
        STATE["kaStopped"] = False
    elif name == "drop":
        for connection in list(CONNECTIONS):
            connection.closed = True
            connection.writer.transport.abort()
    elif name == "close":
        for connection in list(CONNECTIONS):
            if connection.protocol.state is State.OPEN:
                connection.protocol.send_close(int(query.get("code", 1000)), query.get("reason", ""))
                connection.flush()
    elif name == "stall":
        STALL.seconds = float(query.get("seconds", "0"))
        STALL.remaining = int(query["count"]) if "count" in query else None
        STALL.scope = query.get("scope", "all")
    elif name == "stop-ka":
        STATE["kaStopped"] = True
    elif name == "start-ka":
        STATE["kaStopped"] = False
    elif name == "fail":
        entry = (int(query.get("status", "500")), query.get("errorType", "InternalFailure"),
                 query.get("message", "An internal failure occurred."))
        FAILS.extend([entry] * int(query.get("count", "1")))
    elif name == "burst":
        field, count, wanted = query.get("field", ""), int(query.get("count", "1")), query.get("name")
        targets = [sub for sub in list(SUBSCRIPTIONS.values())
                   if sub.field == field and (wanted is None or sub.args.get("name") == wanted)]
        # Framed first, then written in one go: the server's own speed stays out of the rate.
        started = str(time.time_ns())
        for subscription in targets:
            connection = subscription.connection
            if connection.closed or connection.protocol.state is not State.OPEN:
                continue
            for index in range(count):
                item = {"id": str(index), "name": wanted, "description": started}
                message = {"type": "data", "id": subscription.id, "payload": {"data": {field: item}}}
                connection.protocol.send_text(json.dumps(message, separators=COMPACT).encode())
        for subscription in targets:
            subscription.connection.flush()
        return json_answer({"ok": True, "subscriptions": len(targets)})
    elif name == "iam-credentials":
        spec = json.loads(body or b"{}")
        IAM_KEYS[spec["accessKeyId"]] = (spec["secretAccessKey"], spec.get("sessionToken"))
    elif name == "seed":
        try:
            return json_answer({"ok": True, "seeded": seed(json.loads(body or b"{}"))})
        except ValueError as error:
            return error_answer(400, "BadRequestException", str(error))
    else:
        return error_answer(404, "NotFoundException", f"no control endpoint {name}")
    return json_answer({"ok": True})


def seed(spec):
    """/control/seed: records straight into the model tables (or, without --models, "Todo" into the todos)."""
    if MODELS:
        return MODELS.api.seed(spec)
    if not isinstance(spec, dict) or set(spec) - {"Todo"} or not isinstance(spec.get("Todo", []), list):
        raise ValueError('without --models only {"Todo": [records...]} can be seeded')
    if not all(isinstance(raw, dict) for raw in spec.get("Todo", [])):
        raise ValueError("each record must be a JSON object")
    for raw in spec.get("Todo", []):
        item = dict(raw)
        item["id"] = item.get("id") or str(uuid.uuid4())
        item.setdefault("createdAt", now_iso())
        item.setdefault("updatedAt", item["createdAt"])
        TODOS[item["id"]] = item
    return {"Todo": len(spec.get("Todo", []))}


async def route(method, target, headers, body):
    path, _, query_text = target.partition("?")
    query = dict(parse_qsl(query_text))
    if path == "/health":
        return json_answer({"status": "ok"})
    if path.startswith("/control/"):
        return await control(method, path, query, body)
    if path.rstrip("/") != "/graphql":
        return error_answer(404, "NotFoundException", "Not Found")
    if method != "POST":
        return error_answer(405, "MethodNotAllowedException", f"{method} is not supported on /graphql")
    await STALL.wait("http")
    STATE["graphqlRequests"] += 1
    if FAILS:
        return error_answer(*FAILS.pop(0))
    flat = {name: ",".join(values) for name, values in headers.items()}
    try:
        identity = await authenticate(flat, method, target, body)
    except AuthError as error:
        return error_answer(error.status, error.error_type, error.message)
    try:
        request = json.loads(body)
    except ValueError:
        request = None
    answer = await run_graphql(request, identity) if isinstance(request, dict) else None
    if answer is None:
        return error_answer(400, "MalformedHttpRequestException", "The request body is not a GraphQL request: "
                            "a JSON object with a string query, an object variables and a string operationName")
    return json_answer(answer)


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
                status, payload, extra = await route(method, target, headers, body)
            except Exception as error:  # answered, not dropped: the client sees what went wrong
                print(f"appsync_server: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
                status, payload, extra = error_answer(500, "InternalFailure", f"{type(error).__name__}: {error}")
            log(method, target, status)
            writer.write(render(status, payload, keep_alive, extra))
            await writer.drain()
            if not keep_alive:
                break
    except (ConnectionError, OSError, asyncio.IncompleteReadError, ssl.SSLError, ValueError):
        pass
    finally:
        if not writer.is_closing():
            writer.close()


# --- Start ---------------------------------------------------------------------------------------

def parse_args():
    parser = argparse.ArgumentParser(description="A local AppSync stand-in (GraphQL over HTTP and real-time WebSocket)")
    parser.add_argument("--port", type=int, required=True, help="0 picks a free port (printed in READY)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--schema", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema.graphql"))
    parser.add_argument("--models", help="a Gen 2 model_introspection JSON file: serve the API generated for it")
    parser.add_argument("--conflict-detection", action="store_true",
                        help="with --models: _version, _deleted, _lastChangedAt and syncXs, as with DataStore's conflict detection")
    parser.add_argument("--region", default="us-east-1")
    parser.add_argument("--api-key", action="append", default=[])
    parser.add_argument("--jwks-url")
    parser.add_argument("--user-pool-issuer")
    parser.add_argument("--user-pool-client-id", action="append", default=[])
    parser.add_argument("--iam-access-key", action="append", default=[])
    parser.add_argument("--iam-secret-key", action="append", default=[])
    parser.add_argument("--iam-session-token", action="append", default=[])
    parser.add_argument("--oidc-token", action="append", default=[])
    parser.add_argument("--lambda-token", action="append", default=[])
    parser.add_argument("--default-auth", choices=[API_KEY, COGNITO, IAM, OIDC, LAMBDA])
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--ka-interval", type=float, default=60.0)
    parser.add_argument("--connection-timeout-ms", type=int, default=300000)
    parser.add_argument("--max-subscriptions", type=int, default=100)
    parser.add_argument("--exit-with-stdin", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    try:
        loopback = ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        parser.error("--host must be a loopback address (127.0.0.1)")
    if args.jwks_url:
        jwks_host = urlsplit(args.jwks_url).hostname or ""
        if jwks_host != "localhost" and not (re.match(r"^[\d.:]+$", jwks_host) and ipaddress.ip_address(jwks_host).is_loopback):
            parser.error("--jwks-url must point at 127.0.0.1 (e.g. moto_server's /<poolId>/.well-known/jwks.json)")
        if not args.user_pool_issuer:
            parser.error("--jwks-url needs --user-pool-issuer")
    if len(args.iam_access_key) != len(args.iam_secret_key):
        parser.error("give each --iam-access-key its --iam-secret-key")
    if bool(args.tls_cert) != bool(args.tls_key):
        parser.error("--tls-cert and --tls-key go together")
    if args.conflict_detection and not args.models:
        parser.error("--conflict-detection needs --models")
    return args


class Models:
    """Model mode: the API of model_schema.py and the filter its subscriptions apply."""

    def __init__(self, path, conflict_detection):
        sys.dont_write_bytecode = True  # no __pycache__ in the Swift target's folder (SwiftPM warns of unhandled files)
        import model_schema
        with open(path, encoding="utf-8") as file:
            introspection = json.load(file)
        if isinstance(introspection.get("data"), dict):  # a whole amplify_outputs.json
            introspection = introspection["data"].get("model_introspection") or {}
        self.api = model_schema.ModelAPI(introspection, conflict_detection, error=AppSyncError)
        self.matches = model_schema.matches


async def main():
    global SCHEMA, SUBSCRIBED_MUTATIONS, MODELS
    if CONFIG.models:
        MODELS = Models(CONFIG.models, CONFIG.conflict_detection)
        SCHEMA = schema_from_sdl(MODELS.api.sdl())
        MODELS.api.install(SCHEMA)
        SUBSCRIBED_MUTATIONS = install_resolvers(SCHEMA, resolvers={})
    else:
        SCHEMA = load_schema(CONFIG.schema)
        SUBSCRIBED_MUTATIONS = install_resolvers(SCHEMA)
    modes = configured_modes()
    if not modes:
        sys.exit("configure at least one authorization mode (--api-key, --jwks-url, --iam-access-key, --oidc-token, --lambda-token)")
    if CONFIG.default_auth is None:
        CONFIG.default_auth = modes[0]
    elif CONFIG.default_auth not in modes:
        sys.exit(f"--default-auth {CONFIG.default_auth} is not among the configured modes {modes}")
    context = None
    if CONFIG.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(CONFIG.tls_cert, CONFIG.tls_key)
        context.set_alpn_protocols(["http/1.1"])
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, info: log("asyncio:", info.get("message"), info.get("exception")))
    server = await asyncio.start_server(handle_client, CONFIG.host, CONFIG.port, ssl=context, limit=1 << 20)
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    if CONFIG.exit_with_stdin:
        def watch_stdin():
            while sys.stdin.buffer.read(4096):
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
ALLOWED = {}
MIDDLEWARE = MiddlewareManager(auth_middleware)
SCHEMA = None
SUBSCRIBED_MUTATIONS = {}
MODELS = None
if __name__ == "__main__":
    asyncio.run(main())
