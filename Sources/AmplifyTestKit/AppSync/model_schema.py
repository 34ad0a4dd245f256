"""The AppSync stand-in's model mode (appsync_server.py --models FILE): from a Gen 2
`model_introspection` JSON object ({"version", "models", "enums", "nonModels"}) it writes the schema
the Amplify GraphQL transformer generates for those models, and resolves it against in-memory
tables, one per model.

Per model X (plural Xs, key fields K, the default key being `id`):
  type X { fields..., belongsTo/hasOne: Y, hasMany(filter, sortDirection, limit, nextToken): ModelYConnection,
           createdAt: AWSDateTime!, updatedAt: AWSDateTime! [, _version: Int!, _deleted: Boolean,
           _lastChangedAt: AWSTimestamp!] }
  getX(K...: T!)   listXs([pk: T, sk: ModelTKeyConditionInput,] filter, limit, nextToken[, sortDirection])
  <index queryField>(pk: T!, [sk: ModelTKeyConditionInput,] sortDirection, filter, limit, nextToken)
  [syncXs(filter, limit, nextToken, lastSync: AWSTimestamp)]         with conflict detection
  createX(input: CreateXInput!, condition: ModelXConditionInput) (update, delete likewise)
  onCreateX(filter: ModelSubscriptionXFilterInput[, owner: String]) (onUpdateX, onDeleteX likewise)
Every type carries all five auth directives: the server's per-request checks decide, @auth rules are
not enforced (an owner rule only fills the owner field of a user's create).

Lists page as DynamoDB does: `limit` (100) items are read, then `filter` drops some (a page may be
short and still have a nextToken). Scans run in insertion order, queries by a key in sort-key order
(`sortDirection`). A nextToken is base64 JSON of an offset and a hash of the query (field, key
arguments, filter, parent): a token of another query is refused. Filters evaluate as DynamoDB's
expressions: a missing attribute matches only `ne`, `notContains`, `notIn` and `attributeExists:
false`; values of different types never compare.
"""
import base64
import datetime
import hashlib
import json
import time
import uuid

from graphql import OperationType

AUTH = "@aws_api_key @aws_iam @aws_cognito_user_pools @aws_oidc @aws_lambda"
# What each scalar is filtered, compared and keyed as.
SCALAR_BASE = {"ID": "ID", "String": "String", "Int": "Int", "Float": "Float", "Boolean": "Boolean",
               "AWSDate": "String", "AWSTime": "String", "AWSDateTime": "String", "AWSTimestamp": "Int",
               "AWSEmail": "String", "AWSJSON": "String", "AWSURL": "String", "AWSPhone": "String",
               "AWSIPAddress": "String"}
PROVIDER_MODES = {"userPools": "AMAZON_COGNITO_USER_POOLS", "oidc": "OPENID_CONNECT"}
CONFLICT_FIELDS = ("_version", "_deleted", "_lastChangedAt")

COMMON_SDL = """
enum ModelAttributeTypes { binary binarySet bool list map number numberSet string stringSet _null }
enum ModelSortDirection { ASC DESC }
input ModelSizeInput { ne: Int eq: Int le: Int lt: Int ge: Int gt: Int between: [Int] }
input ModelStringInput { ne: String eq: String le: String lt: String ge: String gt: String contains: String
  notContains: String between: [String] beginsWith: String attributeExists: Boolean
  attributeType: ModelAttributeTypes size: ModelSizeInput }
input ModelIDInput { ne: ID eq: ID le: ID lt: ID ge: ID gt: ID contains: ID notContains: ID between: [ID]
  beginsWith: ID attributeExists: Boolean attributeType: ModelAttributeTypes size: ModelSizeInput }
input ModelIntInput { ne: Int eq: Int le: Int lt: Int ge: Int gt: Int between: [Int] attributeExists: Boolean
  attributeType: ModelAttributeTypes }
input ModelFloatInput { ne: Float eq: Float le: Float lt: Float ge: Float gt: Float between: [Float]
  attributeExists: Boolean attributeType: ModelAttributeTypes }
input ModelBooleanInput { ne: Boolean eq: Boolean attributeExists: Boolean attributeType: ModelAttributeTypes }
input ModelSubscriptionStringInput { ne: String eq: String le: String lt: String ge: String gt: String
  contains: String notContains: String between: [String] beginsWith: String in: [String] notIn: [String] }
input ModelSubscriptionIDInput { ne: ID eq: ID le: ID lt: ID ge: ID gt: ID contains: ID notContains: ID
  between: [ID] beginsWith: ID in: [ID] notIn: [ID] }
input ModelSubscriptionIntInput { ne: Int eq: Int le: Int lt: Int ge: Int gt: Int between: [Int] in: [Int] notIn: [Int] }
input ModelSubscriptionFloatInput { ne: Float eq: Float le: Float lt: Float ge: Float gt: Float between: [Float]
  in: [Float] notIn: [Float] }
input ModelSubscriptionBooleanInput { ne: Boolean eq: Boolean }
input ModelStringKeyConditionInput { eq: String le: String lt: String ge: String gt: String between: [String]
  beginsWith: String }
input ModelIDKeyConditionInput { eq: ID le: ID lt: ID ge: ID gt: ID between: [ID] beginsWith: ID }
input ModelIntKeyConditionInput { eq: Int le: Int lt: Int ge: Int gt: Int between: [Int] }
input ModelFloatKeyConditionInput { eq: Float le: Float lt: Float ge: Float gt: Float between: [Float] }
"""


def now_iso():
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def now_ms():
    return time.time_ns() // 1_000_000


# --- Filters, as DynamoDB evaluates them ---------------------------------------------------------

def kind_of(value):
    """DynamoDB's type of a stored value (ModelAttributeTypes' names)."""
    if value is None:
        return "_null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "map"
    return "other"


def _same(value, argument):
    return kind_of(value) == kind_of(argument) and value == argument


def _ordered(value, argument):
    """Whether the two compare with <, as DynamoDB compares: strings with strings, numbers with numbers."""
    return kind_of(value) == kind_of(argument) and kind_of(value) in ("string", "number")


def _contains(value, argument):
    if isinstance(value, str):
        return isinstance(argument, str) and argument in value
    if isinstance(value, list):
        return any(_same(element, argument) for element in value)
    return False


def _size(value):
    if isinstance(value, (str, list, dict)):
        return len(value)
    return None


def operator_holds(operator, value, argument):
    """One operator on a present value (not None)."""
    if operator == "eq":
        return _same(value, argument)
    if operator == "ne":
        return not _same(value, argument)
    if operator in ("lt", "le", "gt", "ge"):
        if not _ordered(value, argument):
            return False
        return {"lt": value < argument, "le": value <= argument, "gt": value > argument, "ge": value >= argument}[operator]
    if operator == "between":
        return (isinstance(argument, list) and len(argument) == 2 and _ordered(value, argument[0])
                and _ordered(value, argument[1]) and argument[0] <= value <= argument[1])
    if operator == "beginsWith":
        return isinstance(value, str) and isinstance(argument, str) and value.startswith(argument)
    if operator == "contains":
        return _contains(value, argument)
    if operator == "notContains":
        return not _contains(value, argument)
    if operator == "in":
        return any(_same(value, element) for element in argument)
    if operator == "notIn":
        return not any(_same(value, element) for element in argument)
    return False


def field_matches(present, value, condition):
    """A Model<Type>Input (every operator given must hold) on one attribute."""
    for operator, argument in condition.items():
        if argument is None:
            continue
        if operator == "attributeExists":
            ok = present == argument
        elif operator == "attributeType":
            ok = present and kind_of(value) == argument
        elif operator == "size":
            size = _size(value) if present else None
            ok = size is not None and field_matches(True, size, argument)
        elif not present or value is None:
            ok = operator in ("ne", "notContains", "notIn")
        else:
            ok = operator_holds(operator, value, argument)
        if not ok:
            return False
    return True


def matches(item, model_filter):
    """A ModelXFilterInput / ConditionInput / ModelSubscriptionXFilterInput on a record: per-field
    operators, `and`, `or` (an empty list holds) and `not`."""
    for key, condition in (model_filter or {}).items():
        if condition is None:
            continue
        if key == "and":
            ok = all(matches(item, part) for part in condition if part is not None)
        elif key == "or":
            parts = [part for part in condition if part is not None]
            ok = not parts or any(matches(item, part) for part in parts)
        elif key == "not":
            ok = not matches(item, condition)
        else:
            ok = field_matches(key in item, item.get(key), condition)
        if not ok:
            return False
    return True


# --- The introspection ---------------------------------------------------------------------------

class Field:
    def __init__(self, spec):
        self.name = spec["name"]
        kind = spec["type"]
        if isinstance(kind, str):
            self.kind, self.type = "scalar", kind
        else:
            self.kind = next(iter(kind))
            self.type = kind[self.kind]
        self.array = bool(spec.get("isArray"))
        self.required = bool(spec.get("isRequired"))
        self.array_nullable = spec.get("isArrayNullable", True)
        self.read_only = bool(spec.get("isReadOnly"))
        self.association = spec.get("association")
        self.implicit_owner = False

    @classmethod
    def plain(cls, name, type_name, read_only=False):
        return cls({"name": name, "type": type_name, "isArray": False, "isRequired": False, "isReadOnly": read_only})

    def graphql_type(self, base=None, optional=False):
        """The field's GraphQL type (`base` replaces the type name: `LocationInput`); `optional`
        drops the outer `!`, as update inputs do."""
        inner = (base or self.type) + ("!" if self.required and (self.array or not optional) else "")
        if not self.array:
            return inner
        return f"[{inner}]" + ("" if self.array_nullable or optional else "!")


class Model:
    def __init__(self, spec):
        self.name = spec["name"]
        self.plural = spec.get("pluralName") or self.name + "s"
        self.fields = {name: Field(field) for name, field in spec.get("fields", {}).items()}
        info = spec.get("primaryKeyInfo") or {}
        self.indexes, key, self.owner_rules, self.timestamps = [], None, [], {"createdAt": "createdAt", "updatedAt": "updatedAt"}
        for attribute in spec.get("attributes", []):
            properties = attribute.get("properties") or {}
            if attribute.get("type") == "key":
                if properties.get("name"):
                    self.indexes.append((properties["name"], list(properties.get("fields", [])), properties.get("queryField")))
                else:
                    key = list(properties.get("fields", []))
            elif attribute.get("type") == "model" and "timestamps" in properties:
                stamps = properties["timestamps"] or {}
                self.timestamps = {"createdAt": stamps.get("createdAt"), "updatedAt": stamps.get("updatedAt")}
            elif attribute.get("type") == "auth":
                for rule in properties.get("rules", []):
                    if rule.get("allow") == "owner":
                        self.owner_rules.append((rule.get("ownerField") or "owner", rule.get("identityClaim") or "cognito:username",
                                                 PROVIDER_MODES.get(rule.get("provider") or "userPools")))
        if info.get("primaryKeyFieldName"):
            key = [info["primaryKeyFieldName"]] + list(info.get("sortKeyFieldNames") or [])
        self.key = key or ["id"]
        self.custom_key = bool(info.get("isCustomPrimaryKey")) if info else self.key != ["id"]
        if "id" in self.key and "id" not in self.fields:
            self.fields["id"] = Field({"name": "id", "type": "ID", "isRequired": True})
        for stamp in self.timestamps.values():
            if stamp and stamp not in self.fields:
                self.fields[stamp] = Field.plain(stamp, "AWSDateTime", read_only=True)
        for owner, _claim, _mode in self.owner_rules:
            if owner not in self.fields:
                self.fields[owner] = Field.plain(owner, "String", read_only=True)
                self.fields[owner].implicit_owner = True

    def add_key_field(self, name):
        """A foreign key a relationship names but the introspection leaves out (Gen 1 style)."""
        if name not in self.fields:
            self.fields[name] = Field.plain(name, "ID")

    def key_of(self, record):
        return tuple(record.get(name) for name in self.key)

    def data_fields(self):
        return [field for field in self.fields.values() if field.kind != "model"]

    def stamp_fields(self):
        return {name for name in self.timestamps.values() if name}

    def filter_fields(self, subscription=False):
        """(name, input type) of the fields a filter takes: scalars and enums."""
        out = []
        for field in self.data_fields():
            if field.kind == "scalar":
                base = SCALAR_BASE.get(field.type, "String")
                if field.implicit_owner:
                    out.append((field.name, "ModelStringInput"))
                else:
                    out.append((field.name, f"Model{'Subscription' if subscription else ''}{base}Input"))
            elif field.kind == "enum":
                if subscription:
                    out.append((field.name, "ModelSubscriptionStringInput"))
                else:
                    out.append((field.name, f"Model{field.type}{'List' if field.array else ''}Input"))
        return out

    def sort_key_input(self, name):
        field = self.fields.get(name)
        base = SCALAR_BASE.get(field.type, "String") if field is not None and field.kind == "scalar" else "String"
        return {"ID": "ModelIDKeyConditionInput", "Int": "ModelIntKeyConditionInput",
                "Float": "ModelFloatKeyConditionInput"}.get(base, "ModelStringKeyConditionInput")


# --- The API ---------------------------------------------------------------------------------------

class ModelAPI:
    """The schema of an introspection and its in-memory data. `error(message, error_type, data)`
    makes the exception a resolver raises for AppSync's error objects."""

    def __init__(self, introspection, conflict_detection=False, error=None):
        self.conflict = conflict_detection
        self.error = error or (lambda message, error_type, data=None: RuntimeError(message))
        self.enums = {name: list(spec.get("values", [])) for name, spec in (introspection.get("enums") or {}).items()}
        self.non_models = {name: [Field(field) for field in spec.get("fields", {}).values()]
                           for name, spec in (introspection.get("nonModels") or {}).items()}
        self.models = {name: Model(spec) for name, spec in (introspection.get("models") or {}).items()}
        if not self.models:
            raise ValueError("the introspection has no models")
        self._link()
        self.tables = {name: {} for name in self.models}

    def _link(self):
        for model in self.models.values():
            for field in list(model.fields.values()):
                association = field.association or {}
                connection = association.get("connectionType")
                if field.kind != "model":
                    continue
                if field.type not in self.models:
                    raise ValueError(f"{model.name}.{field.name} names the unknown model {field.type}")
                if connection in ("BELONGS_TO", "HAS_ONE"):
                    for name in association.get("targetNames") or []:
                        model.add_key_field(name)
                if connection == "HAS_MANY" or (connection == "HAS_ONE" and not association.get("targetNames")):
                    child = self.models[field.type]
                    for name in association.get("associatedWith") or []:
                        if name not in child.fields:
                            child.add_key_field(name)

    # --- schema text ---

    def sdl(self):
        lines = [COMMON_SDL]
        for name, values in self.enums.items():
            lines.append(f"enum {name} {{ {' '.join(values)} }}")
            lines.append(f"input Model{name}Input {{ eq: {name} ne: {name} }}")
            lines.append(f"input Model{name}ListInput {{ eq: [{name}] ne: [{name}] contains: {name} notContains: {name} }}")
        for name, fields in self.non_models.items():
            lines.append(f"type {name} {AUTH} {{\n" + "".join(f"  {f.name}: {self._output_type(f)}\n" for f in fields) + "}")
            lines.append(f"input {name}Input {{\n" + "".join(f"  {f.name}: {self._input_type(f)}\n" for f in fields) + "}")
        queries, mutations, subscriptions = [], [], []
        for model in self.models.values():
            lines.extend(self._model_sdl(model, queries, mutations, subscriptions))
        lines.append(f"type Query {AUTH} {{\n" + "".join(f"  {line}\n" for line in queries) + "}")
        lines.append(f"type Mutation {AUTH} {{\n" + "".join(f"  {line}\n" for line in mutations) + "}")
        lines.append(f"type Subscription {AUTH} {{\n" + "".join(f"  {line}\n" for line in subscriptions) + "}")
        return "\n".join(lines) + "\n"

    def _output_type(self, field):
        return field.graphql_type()

    def _input_type(self, field, optional=False):
        base = f"{field.type}Input" if field.kind == "nonModel" else None
        return field.graphql_type(base, optional=optional)

    def _key_type(self, model, name):
        field = model.fields[name]
        return field.type if field.kind in ("scalar", "enum") else "String"

    def _model_sdl(self, model, queries, mutations, subscriptions):
        name, out = model.name, []
        body = []
        stamps = model.stamp_fields()
        for field in model.fields.values():
            if field.kind == "model":
                target = field.type
                if field.array or (field.association or {}).get("connectionType") == "HAS_MANY":
                    body.append(f"{field.name}(filter: Model{target}FilterInput, sortDirection: ModelSortDirection, "
                                f"limit: Int, nextToken: String): Model{target}Connection")
                else:
                    body.append(f"{field.name}: {target}{'!' if field.required else ''}")
            elif field.name in stamps:
                body.append(f"{field.name}: AWSDateTime!")
            else:
                body.append(f"{field.name}: {self._output_type(field)}")
        if self.conflict:
            body += ["_version: Int!", "_deleted: Boolean", "_lastChangedAt: AWSTimestamp!"]
        out.append(f"type {name} {AUTH} {{\n" + "".join(f"  {line}\n" for line in body) + "}")
        started = " startedAt: AWSTimestamp" if self.conflict else ""
        out.append(f"type Model{name}Connection {AUTH} {{ items: [{name}]! nextToken: String{started} }}")
        deleted = ["_deleted: ModelBooleanInput"] if self.conflict else []
        filters = [f"{field}: {kind}" for field, kind in model.filter_fields()]
        out.append(f"input Model{name}FilterInput {{ " + " ".join(
            filters + [f"and: [Model{name}FilterInput] or: [Model{name}FilterInput] not: Model{name}FilterInput"] + deleted) + " }")
        conditions = [f"{field}: {kind}" for field, kind in model.filter_fields() if field not in model.key]
        out.append(f"input Model{name}ConditionInput {{ " + " ".join(
            conditions + [f"and: [Model{name}ConditionInput] or: [Model{name}ConditionInput] not: Model{name}ConditionInput"]
            + deleted) + " }")
        sub_filters = [f"{field}: {kind}" for field, kind in model.filter_fields(subscription=True)]
        out.append(f"input ModelSubscription{name}FilterInput {{ " + " ".join(
            sub_filters + [f"and: [ModelSubscription{name}FilterInput] or: [ModelSubscription{name}FilterInput]"] + deleted) + " }")
        version = ["_version: Int"] if self.conflict else []
        create, update = [], []
        for field in model.data_fields():
            if field.read_only:
                continue
            if field.name == "id" and "id" in model.key and field.type == "ID":
                create.append("id: ID")
            else:
                create.append(f"{field.name}: {self._input_type(field)}")
            if field.name in model.key:
                update.append(f"{field.name}: {self._key_type(model, field.name)}!")
            else:
                update.append(f"{field.name}: {self._input_type(field, optional=True)}")
        out.append(f"input Create{name}Input {{ " + " ".join(create + version) + " }")
        out.append(f"input Update{name}Input {{ " + " ".join(update + version) + " }")
        out.append(f"input Delete{name}Input {{ " + " ".join(
            [f"{key}: {self._key_type(model, key)}!" for key in model.key] + version) + " }")
        # Queries.
        connection = f"Model{name}Connection"
        keys = ", ".join(f"{key}: {self._key_type(model, key)}!" for key in model.key)
        queries.append(f"get{name}({keys}): {name}")
        paging = f"filter: Model{name}FilterInput, limit: Int, nextToken: String"
        if model.custom_key:
            partition, sort = model.key[0], model.key[1:]
            key_args = f"{partition}: {self._key_type(model, partition)}, "
            if len(sort) == 1:
                key_args += f"{sort[0]}: {model.sort_key_input(sort[0])}, "
            queries.append(f"list{model.plural}({key_args}{paging}, sortDirection: ModelSortDirection): {connection}")
        else:
            queries.append(f"list{model.plural}({paging}): {connection}")
        for _index, fields, query_field in model.indexes:
            if not query_field:
                continue
            key_args = f"{fields[0]}: {self._key_type(model, fields[0])}!, "
            if len(fields) == 2:
                key_args += f"{fields[1]}: {model.sort_key_input(fields[1])}, "
            queries.append(f"{query_field}({key_args}sortDirection: ModelSortDirection, {paging}): {connection}")
        if self.conflict:
            queries.append(f"sync{model.plural}({paging}, lastSync: AWSTimestamp): {connection}")
        for verb in ("create", "update", "delete"):
            mutations.append(f"{verb}{name}(input: {verb.capitalize()}{name}Input!, condition: Model{name}ConditionInput): {name}")
        owners = "".join(f", {owner}: String" for owner in dict.fromkeys(rule[0] for rule in model.owner_rules))
        for verb in ("Create", "Update", "Delete"):
            subscriptions.append(f"on{verb}{name}(filter: ModelSubscription{name}FilterInput{owners}): {name} "
                                 f"@aws_subscribe(mutations: [\"{verb.lower()}{name}\"])")
        return out

    # --- resolvers ---

    def install(self, schema):
        """Sets the resolvers of the schema built from ``sdl()``."""
        query, mutation = schema.query_type.fields, schema.mutation_type.fields
        for model in self.models.values():
            name = model.name
            query[f"get{name}"].resolve = self._get(model)
            query[f"list{model.plural}"].resolve = self._list(model)
            for _index, fields, query_field in model.indexes:
                if query_field:
                    query[query_field].resolve = self._index_query(model, fields)
            if self.conflict:
                query[f"sync{model.plural}"].resolve = self._sync(model)
            mutation[f"create{name}"].resolve = self._create(model)
            mutation[f"update{name}"].resolve = self._update(model)
            mutation[f"delete{name}"].resolve = self._delete(model)
            object_type = schema.type_map[name]
            for field in model.fields.values():
                if field.kind == "model":
                    object_type.fields[field.name].resolve = self._relation(model, field)

    def _get(self, model):
        def resolve(_root, _info, /, **args):
            record = self.tables[model.name].get(model.key_of(args))
            return dict(record) if record is not None else None
        return resolve

    def _list(self, model):
        def resolve(_root, info, /, **args):
            partition, sort = model.key[0], model.key[1:]
            if model.custom_key and args.get(partition) is not None:
                condition = args.get(sort[0]) if len(sort) == 1 else None
                candidates = self._query(model, model.key, args[partition], condition, args.get("sortDirection"))
            else:
                for given in ([sort[0]] if len(sort) == 1 else []) + ["sortDirection"]:
                    if args.get(given) is not None:
                        raise self.error(f"When providing argument '{given}' you must also provide argument "
                                         f"'{partition}'.", "InvalidArgumentsError")
                candidates = list(self.tables[model.name].values())
            return self._page(model, candidates, args, info.field_name)
        return resolve

    def _index_query(self, model, fields):
        def resolve(_root, info, /, **args):
            condition = args.get(fields[1]) if len(fields) == 2 else None
            candidates = self._query(model, fields, args[fields[0]], condition, args.get("sortDirection"))
            return self._page(model, candidates, args, info.field_name)
        return resolve

    def _sync(self, model):
        def resolve(_root, info, /, **args):
            last = args.get("lastSync")
            candidates = [record for record in self.tables[model.name].values()
                          if last is None or record.get("_lastChangedAt", 0) >= last]
            page = self._page(model, candidates, args, info.field_name)
            page["startedAt"] = now_ms()
            return page
        return resolve

    def _relation(self, model, field):
        association = field.association or {}
        connection = association.get("connectionType")
        target = self.models[field.type]
        many = field.array or connection == "HAS_MANY"
        # belongsTo, and a Gen 1 hasOne, hold the other's key in fields of their own (targetNames);
        # a hasMany, and a Gen 2 hasOne, find the records whose associatedWith fields hold this key.
        targets = association.get("targetNames") or []
        holds_key = bool(targets) and (connection == "BELONGS_TO" or (not many and not set(targets) & set(model.key)))

        def resolve(root, info, /, **args):
            if info.operation.operation == OperationType.SUBSCRIPTION:
                return root.get(field.name)  # what the mutation selected, as AppSync sends it
            if holds_key:
                key = tuple(root.get(name) for name in targets)
                record = None if None in key else self.tables[target.name].get(key)
                return dict(record) if record is not None else None
            foreign = self._foreign_fields(target, association.get("associatedWith") or [])
            parent_key = model.key_of(root)
            foreign = foreign[:len(parent_key)]
            candidates = [record for record in self.tables[target.name].values()
                          if all(record.get(name) == value for name, value in zip(foreign, parent_key))]
            index = next((fields for _name, fields, _query in target.indexes if fields[:len(foreign)] == foreign), None)
            sort = index[len(foreign):] if index else []
            candidates = self._ordered(candidates, sort, args.get("sortDirection"))
            if not many:
                return dict(candidates[0]) if candidates else None
            return self._page(target, candidates, args, f"{model.name}.{field.name}", parent_key)
        return resolve

    def _foreign_fields(self, child, names):
        """The child's key fields that hold the parent's key: a belongsTo field stands for its targetNames."""
        out = []
        for name in names:
            field = child.fields.get(name)
            if field is not None and field.kind == "model" and (field.association or {}).get("targetNames"):
                out.extend(field.association["targetNames"])
            else:
                out.append(name)
        return out

    def _query(self, model, key_fields, partition_value, condition, direction):
        partition, sort = key_fields[0], key_fields[1:]
        items = [record for record in self.tables[model.name].values()
                 if record.get(partition) == partition_value and all(record.get(name) is not None for name in sort)]
        if condition and sort:
            items = [record for record in items if field_matches(True, record.get(sort[0]), condition)]
        return self._ordered(items, sort, direction)

    @staticmethod
    def _ordered(items, sort, direction):
        if sort:
            items = sorted(items, key=lambda record: tuple((kind_of(record.get(name)), record.get(name)) for name in sort))
        if direction == "DESC":
            items = list(reversed(items))
        return items

    def _page(self, model, candidates, args, field_name, parent_key=None):
        query = json.dumps([model.name, field_name, parent_key,
                            {key: value for key, value in args.items() if key not in ("limit", "nextToken")}],
                           sort_keys=True, default=str, separators=(",", ":"))
        digest = hashlib.sha256(query.encode()).hexdigest()[:16]
        start = 0
        if args.get("nextToken"):
            start = self._read_token(args["nextToken"], digest)
        limit = 100 if args.get("limit") is None else args["limit"]
        if limit < 1:
            raise self.error(f"1 validation error detected: Value '{limit}' at 'limit' failed to satisfy constraint: "
                             "Member must have value greater than or equal to 1", "DynamoDB:DynamoDbException")
        scanned = candidates[start:start + limit]
        end = start + len(scanned)
        token = None
        if end < len(candidates):
            token = base64.b64encode(json.dumps({"offset": end, "query": digest}).encode()).decode()
        page = {"items": [dict(record) for record in scanned if matches(record, args.get("filter"))], "nextToken": token}
        if self.conflict:
            page["startedAt"] = None
        return page

    def _read_token(self, token, digest):
        try:
            spec = json.loads(base64.b64decode(token, validate=True))
            offset = spec["offset"]
            if spec["query"] != digest or not isinstance(offset, int) or offset < 0:
                raise ValueError("another query's token")
            return offset
        except (ValueError, TypeError, KeyError):
            raise self.error("Invalid pagination token given.", "DynamoDB:DynamoDbException")

    # --- mutations ---

    def _condition_failed(self):
        return self.error(f"The conditional request failed (Service: DynamoDb, Status Code: 400, Request ID: "
                          f"{uuid.uuid4().hex.upper()[:32]})", "DynamoDB:ConditionalCheckFailedException")

    def _conflict(self, model, record):
        data = {"__typename": model.name}
        for key, value in record.items():
            field = model.fields.get(key)
            json_text = field is not None and field.type == "AWSJSON" and not isinstance(value, str) and value is not None
            data[key] = json.dumps(value, separators=(",", ":")) if json_text else value
        return self.error("Conflict resolver rejects mutation.", "ConflictUnhandled", data)

    def _owner(self, model, record, identity):
        for owner, claim, mode in model.owner_rules:
            if record.get(owner) is not None or identity is None or identity.mode != mode:
                continue
            claims = identity.claims or {}
            if claim in ("cognito:username", "username"):
                value = identity.username
            elif claim == "sub":
                value = identity.sub
            elif "::" in claim:
                parts = [identity.sub if part == "sub" else identity.username if part in ("username", "cognito:username")
                         else claims.get(part) for part in claim.split("::")]
                value = "::".join(parts) if None not in parts else None
            else:
                value = claims.get(claim)
            if value is not None:
                record[owner] = [value] if model.fields[owner].array else value

    def _create(self, model):
        def resolve(_root, info, /, input, condition=None):
            record = {key: value for key, value in input.items() if key not in CONFLICT_FIELDS}
            if "id" in model.key and record.get("id") is None and model.fields["id"].type == "ID":
                record["id"] = str(uuid.uuid4())
            self._owner(model, record, getattr(info.context, "identity", None))
            table = self.tables[model.name]
            key = model.key_of(record)
            if key in table or (condition and not matches({}, condition)):
                raise self._condition_failed()
            now = now_iso()
            for stamp in model.stamp_fields():
                if record.get(stamp) is None:
                    record[stamp] = now
            if self.conflict:
                record["_version"], record["_lastChangedAt"] = 1, now_ms()
            table[key] = record
            return dict(record)
        return resolve

    def _existing(self, model, input, condition):
        """The record a mutation changes, after its version and condition checks."""
        record = self.tables[model.name].get(model.key_of(input))
        if record is None:
            raise self._condition_failed()
        if self.conflict:
            version = input.get("_version")
            if record.get("_deleted") or (version is not None and version != record.get("_version")):
                raise self._conflict(model, record)
        if condition and not matches(record, condition):
            raise self._condition_failed()
        return record

    def _update(self, model):
        def resolve(_root, _info, /, input, condition=None):
            record = self._existing(model, input, condition)
            for key, value in input.items():
                if key in CONFLICT_FIELDS or key in model.key:
                    continue
                if value is None:
                    record.pop(key, None)
                else:
                    record[key] = value
            updated = model.timestamps.get("updatedAt")
            if updated and input.get(updated) is None:
                record[updated] = now_iso()
            if self.conflict:
                record["_version"] = record.get("_version", 1) + 1
                record["_lastChangedAt"] = now_ms()
            return dict(record)
        return resolve

    def _delete(self, model):
        def resolve(_root, _info, /, input, condition=None):
            record = self._existing(model, input, condition)
            if self.conflict:
                record["_deleted"] = True
                record["_version"] = record.get("_version", 1) + 1
                record["_lastChangedAt"] = now_ms()
                return dict(record)
            del self.tables[model.name][model.key_of(record)]
            return dict(record)
        return resolve

    # --- control ---

    def reset(self):
        for table in self.tables.values():
            table.clear()

    def counts(self):
        return {name: len(table) for name, table in self.tables.items()}

    def seed(self, spec):
        """Stores records as given ({"Post": [{...}, ...]}), replacing any of the same key: an `id`
        key is made when absent, timestamps and (with conflict detection) `_version` 1 and
        `_lastChangedAt` filled in, integral numbers of Int fields made ints.
        Raises ValueError for an unknown model, a record that is not an object or lacks its key."""
        if not isinstance(spec, dict):
            raise ValueError('the body must be a JSON object {"Model": [records...]}')
        checked = []
        for name, records in spec.items():
            model = self.models.get(name)
            if model is None:
                raise ValueError(f"no model {name} (models: {', '.join(self.models)})")
            if not isinstance(records, list):
                raise ValueError(f"{name}: a list of records is expected")
            for raw in records:
                if not isinstance(raw, dict):
                    raise ValueError(f"{name}: each record must be a JSON object")
                record = dict(raw)
                if "id" in model.key and record.get("id") is None:
                    record["id"] = str(uuid.uuid4())
                for field in model.fields.values():
                    value = record.get(field.name)
                    if field.type in ("Int", "AWSTimestamp") and isinstance(value, float) and value.is_integer():
                        record[field.name] = int(value)
                missing = [key for key in model.key if record.get(key) is None]
                if missing:
                    raise ValueError(f"{name}: a record lacks its key field(s) {', '.join(missing)}")
                now = now_iso()
                for stamp in model.stamp_fields():
                    record.setdefault(stamp, now)
                if self.conflict:
                    version = record.get("_version", 1)
                    record["_version"] = int(version) if isinstance(version, (int, float)) else 1
                    record.setdefault("_lastChangedAt", now_ms())
                checked.append((model, record))
        for model, record in checked:
            self.tables[model.name][model.key_of(record)] = record
        counts = {}
        for model, _record in checked:
            counts[model.name] = counts.get(model.name, 0) + 1
        return counts
