"""Self-test of the AppSync stand-in's model mode (appsync_server.py --models). Run it with the
test-tools venv's python:

    .build/test-tools/venv/bin/python Sources/AmplifyTestKit/AppSync/test_model_server.py -v

It starts appsync_server.py twice on free ports with Tests/Fixtures/ModelIntrospection/blog.json
(Blog, Post, Comment, Inventory), once plain and once with --conflict-detection, plus moto_server
for user-pool tokens (the owner test is skipped when moto_server is missing), and stops them by PID.
"""
import base64
import contextlib
import json
import os
import sys
import time
import unittest
import urllib.error
import urllib.request

from websockets.sync.client import connect

sys.dont_write_bytecode = True  # no __pycache__ in the Swift target's folder (SwiftPM warns of unhandled files)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_appsync_server as base  # noqa: E402  (its helpers; its tests stay in its own module)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
INTROSPECTION = os.path.join(ROOT, "Tests", "Fixtures", "ModelIntrospection", "blog.json")
API_KEY = "model-key"
CCF = "DynamoDB:ConditionalCheckFailedException"
POST_FIELDS = "id title status rating score published tags location { lat lng name } publishedOn postedAt blogId createdAt updatedAt __typename"
CREATE_POST = f"mutation($input: CreatePostInput!, $condition: ModelPostConditionInput) {{ createPost(input: $input, condition: $condition) {{ {POST_FIELDS} }} }}"
UPDATE_POST = f"mutation($input: UpdatePostInput!, $condition: ModelPostConditionInput) {{ updatePost(input: $input, condition: $condition) {{ {POST_FIELDS} }} }}"
DELETE_POST = "mutation($input: DeletePostInput!, $condition: ModelPostConditionInput) { deletePost(input: $input, condition: $condition) { id title } }"
LIST_POSTS = "query($f: ModelPostFilterInput, $l: Int, $t: String) { listPosts(filter: $f, limit: $l, nextToken: $t) { items { id title } nextToken } }"
INVENTORY = "productID warehouseID name quantity"


class ModelServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.processes, cls.pool, flags = [], None, []
        moto = os.path.join(os.path.dirname(sys.executable), "moto_server")
        if os.path.exists(moto):
            moto_port = base.free_port()
            cls.processes.append(base.Process([moto, "-H", "127.0.0.1", "-p", str(moto_port)]))
            base.wait_for(f"http://127.0.0.1:{moto_port}/moto-api/data.json")
            cls.pool = base.AppSyncServerTest.make_user_pool(f"http://127.0.0.1:{moto_port}")
            flags = ["--jwks-url", f"http://127.0.0.1:{moto_port}/{cls.pool['id']}/.well-known/jwks.json",
                     "--user-pool-issuer", f"https://cognito-idp.us-east-1.amazonaws.com/{cls.pool['id']}",
                     "--user-pool-client-id", cls.pool["client"]]
        common = ["--api-key", API_KEY, "--default-auth", "API_KEY", "--models", INTROSPECTION, "--ka-interval", "5"]
        server, cls.port = base.start_appsync(*common, *flags)
        cls.processes.append(server)
        versioned, cls.versioned_port = base.start_appsync(*common, "--conflict-detection")
        cls.processes.append(versioned)

    @classmethod
    def tearDownClass(cls):
        for process in reversed(cls.processes):
            process.stop()

    def setUp(self):
        self.control("reset")
        self.control("reset", port=self.versioned_port)
        self.sockets = contextlib.ExitStack()

    def tearDown(self):
        self.sockets.close()

    # --- helpers ---

    def control(self, name, body=None, port=None):
        data = json.dumps(body).encode() if body is not None else b""
        request = urllib.request.Request(f"http://127.0.0.1:{port or self.port}/control/{name}", data=data, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def state(self, port=None):
        with urllib.request.urlopen(f"http://127.0.0.1:{port or self.port}/control/state", timeout=10) as answer:
            return json.loads(answer.read())

    def seed(self, records, port=None):
        status, answer = self.control("seed", records, port=port)
        self.assertEqual(status, 200, answer)
        return answer

    def raw(self, query, variables=None, headers=None, port=None):
        body = json.dumps({"query": query, "variables": variables or {}}).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{port or self.port}/graphql", data=body, method="POST",
                                         headers={"Content-Type": "application/json", **(headers or {"x-api-key": API_KEY})})
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    def gql(self, query, variables=None, **options):
        """The data of an answer without errors."""
        answer = self.raw(query, variables, **options)
        self.assertNotIn("errors", answer, answer)
        return answer["data"]

    def error_of(self, query, variables=None, **options):
        """The one error of an answer."""
        answer = self.raw(query, variables, **options)
        self.assertEqual(len(answer.get("errors") or []), 1, answer)
        return answer["errors"][0]

    def create_post(self, **fields):
        return self.gql(CREATE_POST, {"input": {"title": "t", "status": "DRAFT", **fields}})["createPost"]

    def titles(self, model_filter, **variables):
        data = self.gql(LIST_POSTS, {"f": model_filter, **variables})
        return sorted(item["title"] for item in data["listPosts"]["items"])

    # --- schema ---

    def test_generated_schema_names(self):
        data = self.gql("{ __schema { queryType { fields { name args { name type { name kind ofType { name } } } } } } }")
        fields = {field["name"]: {arg["name"]: arg["type"]["name"] or arg["type"]["ofType"]["name"] for arg in field["args"]}
                  for field in data["__schema"]["queryType"]["fields"]}
        self.assertEqual(set(fields), {"getBlog", "listBlogs", "getPost", "listPosts", "listPostByBlogId", "getComment",
                                       "listComments", "listCommentByPostId", "getInventory", "listInventories",
                                       "listInventoryByName"})
        self.assertEqual(fields["getInventory"], {"productID": "ID", "warehouseID": "String"})
        self.assertEqual(fields["listInventories"], {"productID": "ID", "warehouseID": "ModelStringKeyConditionInput",
                                                     "filter": "ModelInventoryFilterInput", "limit": "Int",
                                                     "nextToken": "String", "sortDirection": "ModelSortDirection"})
        self.assertEqual(fields["listPosts"], {"filter": "ModelPostFilterInput", "limit": "Int", "nextToken": "String"})
        self.assertEqual(set(fields["listPostByBlogId"]), {"blogId", "sortDirection", "filter", "limit", "nextToken"})
        data = self.gql('{ __type(name: "CreatePostInput") { inputFields { name type { kind name } } } }')
        inputs = {field["name"]: field["type"] for field in data["__type"]["inputFields"]}
        self.assertEqual(list(inputs), ["id", "title", "status", "rating", "score", "published", "tags", "location",
                                        "publishedOn", "postedAt", "blogId"])
        self.assertEqual(inputs["id"], {"kind": "SCALAR", "name": "ID"})
        self.assertEqual(inputs["location"], {"kind": "INPUT_OBJECT", "name": "LocationInput"})
        data = self.gql('{ __type(name: "Subscription") { fields { name args { name } } } }')
        args = {field["name"]: [arg["name"] for arg in field["args"]] for field in data["__type"]["fields"]}
        self.assertEqual(args["onCreateComment"], ["filter", "owner"])
        self.assertEqual(args["onCreatePost"], ["filter"])
        # Without --conflict-detection there is no _version.
        error = self.error_of("{ listPosts { items { id _version } } }")
        self.assertIn("FieldUndefined: Field '_version' in type 'Post' is undefined", error["message"])

    # --- get, list, paging ---

    def test_get_list_and_paging(self):
        posts = [{"id": f"p{index:03d}", "title": f"post {index:03d}", "status": "DRAFT", "rating": index % 5}
                 for index in range(250)]
        self.assertEqual(self.seed({"Post": posts})["seeded"], {"Post": 250})
        got = self.gql(f"query($id: ID!) {{ getPost(id: $id) {{ {POST_FIELDS} }} }}", {"id": "p007"})["getPost"]
        self.assertEqual((got["title"], got["rating"], got["__typename"]), ("post 007", 2, "Post"))
        self.assertTrue(got["createdAt"].endswith("Z"))
        self.assertIsNone(self.gql('{ getPost(id: "nope") { id } }')["getPost"])
        # The default limit is 100; pages follow one another in a stable order.
        seen, token, pages = [], None, 0
        while True:
            page = self.gql(LIST_POSTS, {"t": token})["listPosts"]
            pages += 1
            seen += [item["id"] for item in page["items"]]
            token = page["nextToken"]
            if token is None:
                break
        self.assertEqual((pages, seen), (3, [post["id"] for post in posts]))
        # Smaller pages with a filter: limit counts the items read, the filter then drops some.
        seen, token, sizes = [], None, []
        while True:
            page = self.gql(LIST_POSTS, {"f": {"rating": {"eq": 0}}, "l": 60, "t": token})["listPosts"]
            sizes.append(len(page["items"]))
            seen += [item["id"] for item in page["items"]]
            token = page["nextToken"]
            if token is None:
                break
        self.assertEqual(seen, [post["id"] for post in posts if post["rating"] == 0])
        self.assertEqual(sizes, [12, 12, 12, 12, 2])
        # A token of another query, a forged one and garbage are refused.
        token = self.gql(LIST_POSTS, {"l": 10})["listPosts"]["nextToken"]
        self.assertEqual(self.gql(LIST_POSTS, {"l": 5, "t": token})["listPosts"]["items"][0]["id"], "p010")
        for bad in (token[:-4] + "AAAA", "not-a-token",
                    base64.b64encode(json.dumps({"offset": 10, "query": "0" * 16}).encode()).decode()):
            error = self.error_of(LIST_POSTS, {"t": bad})
            self.assertEqual((error["errorType"], error["path"]), ("DynamoDB:DynamoDbException", ["listPosts"]), bad)
        error = self.error_of(LIST_POSTS, {"f": {"rating": {"eq": 1}}, "t": token})
        self.assertEqual(error["message"], "Invalid pagination token given.")
        error = self.error_of("query($t: String) { listComments(nextToken: $t) { nextToken } }", {"t": token})
        self.assertEqual(error["errorType"], "DynamoDB:DynamoDbException")
        self.assertIn("validation error", self.error_of(LIST_POSTS, {"l": 0})["message"])

    # --- filters ---

    def test_every_filter_operator(self):
        self.seed({"Post": [
            {"id": "a", "title": "alpha", "status": "DRAFT", "rating": 1, "score": 1.5, "published": True,
             "tags": ["x", "y"], "publishedOn": "2024-01-01"},
            {"id": "b", "title": "beta", "status": "PUBLISHED", "rating": 5, "score": 2.5, "published": False,
             "tags": ["y"]},
            {"id": "c", "title": "gamma", "status": "ARCHIVED", "rating": 9},
            {"id": "d", "title": "alphabet", "status": "PUBLISHED"},
        ]})
        cases = [
            ({"title": {"eq": "beta"}}, ["beta"]),
            ({"title": {"ne": "beta"}}, ["alpha", "alphabet", "gamma"]),
            ({"title": {"lt": "beta"}}, ["alpha", "alphabet"]),
            ({"title": {"le": "beta"}}, ["alpha", "alphabet", "beta"]),
            ({"title": {"gt": "beta"}}, ["gamma"]),
            ({"title": {"ge": "beta"}}, ["beta", "gamma"]),
            ({"title": {"contains": "ph"}}, ["alpha", "alphabet"]),
            ({"title": {"notContains": "ph"}}, ["beta", "gamma"]),
            ({"title": {"between": ["alphabet", "beta"]}}, ["alphabet", "beta"]),
            ({"title": {"beginsWith": "alp"}}, ["alpha", "alphabet"]),
            ({"title": {"size": {"gt": 5}}}, ["alphabet"]),
            ({"title": {"size": {"between": [4, 5]}}}, ["alpha", "beta", "gamma"]),
            ({"title": {"attributeType": "string"}}, ["alpha", "alphabet", "beta", "gamma"]),
            ({"id": {"eq": "c"}}, ["gamma"]),
            ({"id": {"beginsWith": "a"}}, ["alpha"]),
            ({"id": {"between": ["b", "c"]}}, ["beta", "gamma"]),
            ({"rating": {"eq": 5}}, ["beta"]),
            ({"rating": {"ne": 5}}, ["alpha", "alphabet", "gamma"]),  # a missing rating is "not 5"
            ({"rating": {"lt": 5}}, ["alpha"]),  # ... but not "less than 5"
            ({"rating": {"le": 5}}, ["alpha", "beta"]),
            ({"rating": {"gt": 1}}, ["beta", "gamma"]),
            ({"rating": {"ge": 1}}, ["alpha", "beta", "gamma"]),
            ({"rating": {"between": [2, 9]}}, ["beta", "gamma"]),
            ({"rating": {"attributeExists": False}}, ["alphabet"]),
            ({"rating": {"attributeExists": True}}, ["alpha", "beta", "gamma"]),
            ({"rating": {"attributeType": "number"}}, ["alpha", "beta", "gamma"]),
            ({"score": {"gt": 2.0}}, ["beta"]),
            ({"score": {"between": [1.0, 2.0]}}, ["alpha"]),
            ({"score": {"ne": 1.5}}, ["alphabet", "beta", "gamma"]),
            ({"published": {"eq": False}}, ["beta"]),
            ({"published": {"ne": True}}, ["alphabet", "beta", "gamma"]),
            ({"published": {"attributeExists": True}}, ["alpha", "beta"]),
            ({"published": {"attributeType": "bool"}}, ["alpha", "beta"]),
            ({"status": {"eq": "PUBLISHED"}}, ["alphabet", "beta"]),
            ({"status": {"ne": "PUBLISHED"}}, ["alpha", "gamma"]),
            ({"tags": {"contains": "x"}}, ["alpha"]),
            ({"tags": {"notContains": "x"}}, ["alphabet", "beta", "gamma"]),
            ({"tags": {"attributeType": "list"}}, ["alpha", "beta"]),
            ({"tags": {"size": {"eq": 2}}}, ["alpha"]),
            ({"publishedOn": {"ge": "2024-01-01"}}, ["alpha"]),
            ({"and": [{"status": {"eq": "PUBLISHED"}}, {"title": {"beginsWith": "b"}}]}, ["beta"]),
            ({"or": [{"rating": {"eq": 1}}, {"rating": {"eq": 9}}]}, ["alpha", "gamma"]),
            ({"not": {"status": {"eq": "PUBLISHED"}}}, ["alpha", "gamma"]),
            ({"status": {"eq": "PUBLISHED"}, "rating": {"attributeExists": False}}, ["alphabet"]),
            ({"or": [{"and": [{"rating": {"gt": 1}}, {"not": {"title": {"eq": "gamma"}}}]}, {"title": {"eq": "alpha"}}]},
             ["alpha", "beta"]),
            ({}, ["alpha", "alphabet", "beta", "gamma"]),
        ]
        for model_filter, expected in cases:
            self.assertEqual(self.titles(model_filter), expected, model_filter)
        # A filter of the wrong type is a validation error.
        answer = self.raw('{ listPosts(filter: {rating: {eq: "x"}}) { items { id } } }')
        self.assertIsNone(answer["data"])
        answer = self.raw('{ listPosts(filter: {status: {eq: UNKNOWN}}) { items { id } } }')
        self.assertIsNone(answer["data"])

    # --- mutations ---

    def test_create_update_delete_with_conditions(self):
        post = self.create_post(title="first", rating=3, tags=["a", None], location={"lat": 1.5, "lng": -2.0},
                                publishedOn="2024-02-29", postedAt="10:20:30.123")
        self.assertEqual(len(post["id"]), 36)  # generated
        self.assertEqual((post["createdAt"], post["__typename"]), (post["updatedAt"], "Post"))
        self.assertEqual(post["location"], {"lat": 1.5, "lng": -2.0, "name": None})
        self.assertEqual(post["tags"], ["a", None])
        error = self.error_of(CREATE_POST, {"input": {"id": post["id"], "title": "again", "status": "DRAFT"}})
        self.assertEqual((error["errorType"], error["path"]), (CCF, ["createPost"]))
        self.assertTrue(error["message"].startswith("The conditional request failed"))
        error = self.error_of(CREATE_POST, {"input": {"title": "x", "status": "DRAFT"},
                                            "condition": {"title": {"attributeExists": True}}})
        self.assertEqual(error["errorType"], CCF)
        self.assertEqual(self.gql(CREATE_POST, {"input": {"id": "mine", "title": "x", "status": "DRAFT"},
                                                "condition": {"title": {"attributeExists": False}}})["createPost"]["id"], "mine")
        # Update: a condition that fails, one that holds; null removes a field.
        error = self.error_of(UPDATE_POST, {"input": {"id": post["id"], "title": "second"}, "condition": {"rating": {"gt": 3}}})
        self.assertEqual(error["errorType"], CCF)
        time.sleep(0.01)
        updated = self.gql(UPDATE_POST, {"input": {"id": post["id"], "title": "second", "rating": None},
                                         "condition": {"rating": {"eq": 3}, "title": {"eq": "first"}}})["updatePost"]
        self.assertEqual((updated["title"], updated["rating"], updated["tags"]), ("second", None, ["a", None]))
        self.assertEqual(updated["createdAt"], post["createdAt"])
        self.assertGreater(updated["updatedAt"], post["updatedAt"])
        self.assertEqual(self.titles({"rating": {"attributeExists": False}}), ["second", "x"])
        error = self.error_of(UPDATE_POST, {"input": {"id": "missing", "title": "y"}})
        self.assertEqual(error["errorType"], CCF)
        # Delete: condition, then for real, then a missing one.
        error = self.error_of(DELETE_POST, {"input": {"id": post["id"]}, "condition": {"title": {"eq": "first"}}})
        self.assertEqual(error["errorType"], CCF)
        deleted = self.gql(DELETE_POST, {"input": {"id": post["id"]}, "condition": {"title": {"eq": "second"}}})
        self.assertEqual(deleted["deletePost"], {"id": post["id"], "title": "second"})
        self.assertIsNone(self.gql('query($id: ID!) { getPost(id: $id) { id } }', {"id": post["id"]})["getPost"])
        self.assertEqual(self.error_of(DELETE_POST, {"input": {"id": post["id"]}})["errorType"], CCF)
        # Unknown and missing input fields are refused before anything runs.
        error = self.error_of(CREATE_POST, {"input": {"title": "x", "status": "DRAFT", "createdAt": "2024-01-01T00:00:00Z"}})
        self.assertEqual(error["message"], "Variable 'input' has an invalid value: The variables input contains a field "
                                           "name 'createdAt' that is not defined for input object type 'CreatePostInput' ")
        error = self.error_of('mutation { createPost(input: {title: "x", status: DRAFT, bogus: 1}) { id } }')
        self.assertIn("WrongType", error["message"])
        error = self.error_of(CREATE_POST, {"input": {"title": "x"}})
        self.assertEqual(error["message"], "Variable 'input' has coerced Null value for NonNull type 'PostStatus!'")
        self.assertEqual(self.state()["models"], {"Blog": 0, "Post": 1, "Comment": 0, "Inventory": 0})

    def test_bad_scalar_values_refused(self):
        for field, value in (("publishedOn", "yesterday"), ("publishedOn", "2024-13-01"), ("postedAt", "25:00"),
                             ("postedAt", "10:2"), ("score", "high"), ("rating", 1.5)):
            answer = self.raw(CREATE_POST, {"input": {"title": "bad", "status": "DRAFT", field: value}})
            self.assertIsNone(answer["data"], (field, value))
            self.assertIn(f"Variable '$input' has invalid value at .{field}", answer["errors"][0]["message"])
        answer = self.raw(f"mutation {{ createInventory(input: {{productID: \"p\", warehouseID: \"w\", name: \"n\", "
                          f"quantity: 1, restockedAt: \"2024-01-01T10:00:00\"}}) {{ {INVENTORY} }} }}")
        self.assertIsNone(answer["data"])
        self.assertIn("Invalid AWSDateTime value", answer["errors"][0]["message"])
        error = self.error_of(CREATE_POST, {"input": {"title": "bad", "status": "DRAFTED"}})
        self.assertIn("PostStatus", error["message"])
        post = self.create_post(publishedOn="2024-01-01+05:30", postedAt="23:59:59.999Z")
        self.assertEqual((post["publishedOn"], post["postedAt"]), ("2024-01-01+05:30", "23:59:59.999Z"))
        inventory = self.gql("mutation { createInventory(input: {productID: \"p\", warehouseID: \"w\", name: \"n\", "
                             "quantity: 1, restockedAt: \"2024-01-01T10:00:00.5-07:00\"}) { restockedAt } }")
        self.assertEqual(inventory["createInventory"]["restockedAt"], "2024-01-01T10:00:00.5-07:00")

    # --- keys and indexes ---

    def test_composite_key_and_sort_key_conditions(self):
        for product, warehouse, name, quantity in (("p1", "w-b", "bolt", 5), ("p1", "w-a", "bolt", 7), ("p1", "x-c", "bolt", 1),
                                                   ("p2", "w-a", "nut", 3)):
            self.gql(f"mutation($i: CreateInventoryInput!) {{ createInventory(input: $i) {{ {INVENTORY} }} }}",
                     {"i": {"productID": product, "warehouseID": warehouse, "name": name, "quantity": quantity}})
        got = self.gql(f'{{ getInventory(productID: "p1", warehouseID: "w-a") {{ {INVENTORY} __typename }} }}')
        self.assertEqual(got["getInventory"], {"productID": "p1", "warehouseID": "w-a", "name": "bolt", "quantity": 7,
                                               "__typename": "Inventory"})
        self.assertIsNone(self.gql('{ getInventory(productID: "p1", warehouseID: "nope") { name } }')["getInventory"])
        query = ("query($p: ID, $w: ModelStringKeyConditionInput, $d: ModelSortDirection) { listInventories(productID: $p, "
                 "warehouseID: $w, sortDirection: $d) { items { warehouseID } } }")

        def warehouses(**variables):
            items = self.gql(query, variables)["listInventories"]["items"]
            return [item["warehouseID"] for item in items]

        self.assertEqual(warehouses(p="p1"), ["w-a", "w-b", "x-c"])
        self.assertEqual(warehouses(p="p1", d="DESC"), ["x-c", "w-b", "w-a"])
        self.assertEqual(warehouses(p="p1", w={"beginsWith": "w-"}), ["w-a", "w-b"])
        self.assertEqual(warehouses(p="p1", w={"eq": "w-b"}), ["w-b"])
        self.assertEqual(warehouses(p="p1", w={"between": ["w-b", "x-c"]}), ["w-b", "x-c"])
        self.assertEqual(warehouses(p="p1", w={"lt": "w-b"}), ["w-a"])
        self.assertEqual(warehouses(p="p1", w={"le": "w-b"}), ["w-a", "w-b"])
        self.assertEqual(warehouses(p="p1", w={"gt": "w-b"}), ["x-c"])
        self.assertEqual(warehouses(p="p1", w={"ge": "w-b"}, d="DESC"), ["x-c", "w-b"])
        self.assertEqual(warehouses(p="p2"), ["w-a"])
        self.assertEqual(warehouses(), ["w-b", "w-a", "x-c", "w-a"])  # a scan: insertion order
        error = self.error_of(query, {"w": {"eq": "w-a"}})
        self.assertEqual(error["errorType"], "InvalidArgumentsError")
        # The named index, its filter and direction.
        index = ('query($n: String!, $d: ModelSortDirection) { listInventoryByName(name: $n, sortDirection: $d, '
                 'filter: {quantity: {gt: 1}}) { items { productID warehouseID } } }')
        self.assertEqual(self.gql(index, {"n": "bolt"})["listInventoryByName"]["items"],
                         [{"productID": "p1", "warehouseID": "w-b"}, {"productID": "p1", "warehouseID": "w-a"}])
        self.assertEqual(len(self.gql(index, {"n": "bolt", "d": "DESC"})["listInventoryByName"]["items"]), 2)
        # Update and delete by the composite key; both key fields are required.
        updated = self.gql('mutation { updateInventory(input: {productID: "p1", warehouseID: "w-a", quantity: 8}) { quantity } }')
        self.assertEqual(updated["updateInventory"], {"quantity": 8})
        error = self.error_of('mutation { updateInventory(input: {productID: "p1", quantity: 8}) { quantity } }')
        self.assertIn("warehouseID", error["message"])
        self.gql('mutation { deleteInventory(input: {productID: "p1", warehouseID: "w-a"}) { name } }')
        self.assertEqual(warehouses(p="p1"), ["w-b", "x-c"])
        error = self.error_of('mutation { createInventory(input: {productID: "p1", warehouseID: "w-b", name: "n", quantity: 1}) '
                              '{ name } }')
        self.assertEqual(error["errorType"], CCF)

    def test_relationships_and_named_index(self):
        blog = self.gql('mutation { createBlog(input: {name: "news"}) { id name } }')["createBlog"]
        other = self.gql('mutation { createBlog(input: {name: "other"}) { id } }')["createBlog"]
        posts = [self.create_post(title=f"post {index}", blogId=blog["id"], rating=index) for index in range(5)]
        self.create_post(title="elsewhere", blogId=other["id"])
        self.create_post(title="orphan")
        for index in range(3):
            self.gql('mutation($i: CreateCommentInput!) { createComment(input: $i) { id } }',
                     {"i": {"content": f"comment {index}", "postId": posts[0]["id"]}})
        by_blog = self.gql('query($b: ID!) { listPostByBlogId(blogId: $b) { items { title } nextToken } }', {"b": blog["id"]})
        self.assertEqual([item["title"] for item in by_blog["listPostByBlogId"]["items"]], [f"post {i}" for i in range(5)])
        by_blog = self.gql('query($b: ID!) { listPostByBlogId(blogId: $b, sortDirection: DESC, limit: 2, '
                           'filter: {rating: {ne: 4}}) { items { title } nextToken } }', {"b": blog["id"]})
        self.assertEqual(by_blog["listPostByBlogId"]["items"], [{"title": "post 3"}])
        self.assertIsNotNone(by_blog["listPostByBlogId"]["nextToken"])
        nested = self.gql('query($id: ID!) { getBlog(id: $id) { name posts(limit: 3) { items { title blog { name } '
                          'comments { items { content post { title } } } } nextToken } } }', {"id": blog["id"]})["getBlog"]
        self.assertEqual(nested["name"], "news")
        self.assertEqual([item["title"] for item in nested["posts"]["items"]], ["post 0", "post 1", "post 2"])
        self.assertEqual(nested["posts"]["items"][1]["blog"], {"name": "news"})
        self.assertEqual([c["content"] for c in nested["posts"]["items"][0]["comments"]["items"]],
                         ["comment 0", "comment 1", "comment 2"])
        self.assertEqual(nested["posts"]["items"][0]["comments"]["items"][0]["post"], {"title": "post 0"})
        self.assertEqual(nested["posts"]["items"][1]["comments"]["items"], [])
        more = self.gql('query($id: ID!, $t: String) { getBlog(id: $id) { posts(limit: 3, nextToken: $t) '
                        '{ items { title } nextToken } } }',
                        {"id": blog["id"], "t": nested["posts"]["nextToken"]})["getBlog"]["posts"]
        self.assertEqual(more, {"items": [{"title": "post 3"}, {"title": "post 4"}], "nextToken": None})
        error = self.error_of('query($id: ID!, $t: String) { getBlog(id: $id) { posts(nextToken: $t) { nextToken } } }',
                              {"id": other["id"], "t": nested["posts"]["nextToken"]})
        self.assertEqual(error["path"], ["getBlog", "posts"])
        orphan = self.gql('{ listPosts(filter: {title: {eq: "orphan"}}) { items { blog { id } } } }')
        self.assertEqual(orphan["listPosts"]["items"], [{"blog": None}])
        # The mutation's answer resolves relationships too.
        created = self.gql('mutation($b: ID!) { createPost(input: {title: "late", status: DRAFT, blogId: $b}) '
                           '{ blog { name posts { items { title } } } } }', {"b": other["id"]})
        self.assertEqual(created["createPost"]["blog"]["posts"]["items"], [{"title": "elsewhere"}, {"title": "late"}])

    # --- conflict detection ---

    def test_conflict_detection(self):
        port = self.versioned_port
        fields = "id title _version _deleted _lastChangedAt"
        post = self.gql(f'mutation {{ createPost(input: {{title: "v", status: DRAFT}}) {{ {fields} }} }}', port=port)["createPost"]
        self.assertEqual((post["_version"], post["_deleted"]), (1, None))
        self.assertGreater(post["_lastChangedAt"], 1_600_000_000_000)
        update = f"mutation($i: UpdatePostInput!) {{ updatePost(input: $i) {{ {fields} }} }}"
        updated = self.gql(update, {"i": {"id": post["id"], "title": "v2", "_version": 1}}, port=port)["updatePost"]
        self.assertEqual((updated["title"], updated["_version"]), ("v2", 2))
        answer = self.raw(update, {"i": {"id": post["id"], "title": "stale", "_version": 1}}, port=port)
        self.assertEqual(answer["data"], {"updatePost": None})
        error = answer["errors"][0]
        self.assertEqual((error["errorType"], error["message"]), ("ConflictUnhandled", "Conflict resolver rejects mutation."))
        self.assertEqual((error["data"]["title"], error["data"]["_version"], error["data"]["__typename"]), ("v2", 2, "Post"))
        delete = f"mutation($i: DeletePostInput!) {{ deletePost(input: $i) {{ {fields} }} }}"
        self.assertEqual(self.error_of(delete, {"i": {"id": post["id"], "_version": 1}}, port=port)["errorType"],
                         "ConflictUnhandled")
        deleted = self.gql(delete, {"i": {"id": post["id"], "_version": 2}}, port=port)["deletePost"]
        self.assertEqual((deleted["_deleted"], deleted["_version"]), (True, 3))
        # The deleted record stays, marked, for sync queries; it can no longer change.
        listed = self.gql(f"{{ listPosts {{ items {{ {fields} }} startedAt }} }}", port=port)["listPosts"]
        self.assertEqual([(item["title"], item["_deleted"]) for item in listed["items"]], [("v2", True)])
        self.assertEqual(self.error_of(update, {"i": {"id": post["id"], "title": "x", "_version": 3}}, port=port)["errorType"],
                         "ConflictUnhandled")
        later = self.gql('mutation { createPost(input: {title: "later", status: DRAFT}) { _lastChangedAt } }', port=port)
        sync = "query($s: AWSTimestamp) { syncPosts(lastSync: $s) { items { title _deleted } startedAt } }"
        self.assertEqual(len(self.gql(sync, port=port)["syncPosts"]["items"]), 2)
        delta = self.gql(sync, {"s": later["createPost"]["_lastChangedAt"]}, port=port)["syncPosts"]
        self.assertEqual(delta["items"], [{"title": "later", "_deleted": None}])
        self.assertGreaterEqual(delta["startedAt"], later["createPost"]["_lastChangedAt"])
        filtered = self.gql('{ listPosts(filter: {_deleted: {ne: true}}) { items { title } } }', port=port)["listPosts"]
        self.assertEqual(filtered["items"], [{"title": "later"}])
        seeded = self.seed({"Inventory": [{"productID": "p", "warehouseID": "w", "name": "n", "quantity": 2.0}]}, port=port)
        self.assertEqual(seeded["seeded"], {"Inventory": 1})
        got = self.gql('{ getInventory(productID: "p", warehouseID: "w") { quantity _version createdAt } }', port=port)
        self.assertEqual((got["getInventory"]["quantity"], got["getInventory"]["_version"]), (2, 1))

    # --- subscriptions ---

    def open_socket(self):
        auth = {"host": f"127.0.0.1:{self.port}", "x-api-key": API_KEY}
        ws = self.sockets.enter_context(connect(f"ws://127.0.0.1:{self.port}/graphql/realtime",
                                                subprotocols=["graphql-ws", base.header_subprotocol(auth)], open_timeout=10))
        ws.send(json.dumps({"type": "connection_init"}))
        self.assertEqual(self.receive(ws)["type"], "connection_ack")
        return ws

    def receive(self, ws, timeout=5):
        deadline = time.time() + timeout
        while True:
            message = json.loads(ws.recv(timeout=max(0.01, deadline - time.time())))
            if message.get("type") != "ka":
                return message

    def start(self, ws, sid, query, variables=None):
        data = json.dumps({"query": query, "variables": variables or {}})
        auth = {"host": f"127.0.0.1:{self.port}", "x-api-key": API_KEY}
        ws.send(json.dumps({"id": sid, "type": "start", "payload": {"data": data, "extensions": {"authorization": auth}}}))
        self.assertEqual(self.receive(ws), {"type": "start_ack", "id": sid})

    def assert_quiet(self, ws, seconds=0.8):
        with self.assertRaises(TimeoutError):
            self.receive(ws, timeout=seconds)

    def test_subscriptions_with_filters(self):
        ws = self.open_socket()
        self.start(ws, "published", "subscription($f: ModelSubscriptionPostFilterInput) { onCreatePost(filter: $f) "
                   "{ id title status __typename } }", {"f": {"status": {"eq": "PUBLISHED"}}})
        self.start(ws, "rated", "subscription { onUpdatePost(filter: {or: [{rating: {in: [1, 2]}}, {title: {beginsWith: \"hot\"}}]}) "
                   "{ title rating } }")
        self.start(ws, "deleted", "subscription { onDeletePost { id } }")
        self.start(ws, "mine", 'subscription { onCreateComment(owner: "alice") { content owner } }')
        self.start(ws, "nested", 'subscription { onUpdateComment { content post { title } } }')
        draft = self.create_post(title="draft")
        published = self.create_post(title="news", status="PUBLISHED")
        message = self.receive(ws)
        self.assertEqual(message, {"type": "data", "id": "published", "payload": {"data": {"onCreatePost": {
            "id": published["id"], "title": "news", "status": "PUBLISHED", "__typename": "Post"}}}})
        self.assert_quiet(ws)  # the draft did not come
        self.gql(UPDATE_POST, {"input": {"id": draft["id"], "rating": 5}})
        self.assert_quiet(ws)
        self.gql(UPDATE_POST, {"input": {"id": draft["id"], "rating": 2}})
        self.assertEqual(self.receive(ws)["payload"], {"data": {"onUpdatePost": {"title": "draft", "rating": 2}}})
        self.gql(UPDATE_POST, {"input": {"id": published["id"], "title": "hot news"}})
        self.assertEqual(self.receive(ws)["payload"], {"data": {"onUpdatePost": {"title": "hot news", "rating": None}}})
        self.gql(DELETE_POST, {"input": {"id": draft["id"]}})
        self.assertEqual(self.receive(ws)["payload"], {"data": {"onDeletePost": {"id": draft["id"]}}})
        comment = "mutation($i: CreateCommentInput!) { createComment(input: $i) { content owner } }"
        self.gql(comment, {"i": {"content": "bob's", "owner": "bob"}})
        self.gql(comment, {"i": {"content": "alice's", "owner": "alice"}})
        self.assertEqual(self.receive(ws)["payload"], {"data": {"onCreateComment": {"content": "alice's", "owner": "alice"}}})
        self.assert_quiet(ws)
        # A relationship comes as the mutation selected it (nothing is looked up for subscribers).
        self.seed({"Comment": [{"id": "c1", "content": "c", "postId": published["id"]}]})
        self.gql('mutation { updateComment(input: {id: "c1", content: "plain"}) { content } }')
        self.assertEqual(self.receive(ws)["payload"], {"data": {"onUpdateComment": {"content": "plain", "post": None}}})
        self.gql('mutation { updateComment(input: {id: "c1", content: "with post"}) { content post { title } } }')
        self.assertEqual(self.receive(ws)["payload"], {"data": {"onUpdateComment": {"content": "with post",
                                                                                    "post": {"title": "hot news"}}}})

    def test_owner_filled_for_user_pool_callers(self):
        if not self.pool:
            self.skipTest("moto_server is not installed beside this python")
        comment = "mutation($i: CreateCommentInput!) { createComment(input: $i) { content owner } }"
        token = self.pool["tokens"]["bob"]["IdToken"]
        self.assertEqual(self.gql(comment, {"i": {"content": "by bob"}}, headers={"Authorization": token})["createComment"],
                         {"content": "by bob", "owner": "bob"})
        self.assertEqual(self.gql(comment, {"i": {"content": "given", "owner": "carol"}},
                                  headers={"Authorization": token})["createComment"]["owner"], "carol")
        self.assertIsNone(self.gql(comment, {"i": {"content": "by key"}})["createComment"]["owner"])
        # Any mode that authenticates may use any model: the rules are not enforced.
        self.assertEqual(len(self.gql("{ listComments { items { id } } }")["listComments"]["items"]), 3)

    # --- control ---

    def test_seed_state_and_reset(self):
        answer = self.seed({"Blog": [{"id": "b1", "name": "seeded"}],
                            "Post": [{"title": f"s{i}", "status": "DRAFT", "blogId": "b1"} for i in range(3)]})
        self.assertEqual(answer, {"ok": True, "seeded": {"Blog": 1, "Post": 3}})
        self.assertEqual(self.state()["models"], {"Blog": 1, "Post": 3, "Comment": 0, "Inventory": 0})
        blog = self.gql('{ getBlog(id: "b1") { name createdAt posts { items { title updatedAt } } } }')["getBlog"]
        self.assertEqual([post["title"] for post in blog["posts"]["items"]], ["s0", "s1", "s2"])
        self.assertTrue(blog["createdAt"])
        self.seed({"Blog": [{"id": "b1", "name": "replaced"}]})
        self.assertEqual(self.gql('{ getBlog(id: "b1") { name } }')["getBlog"]["name"], "replaced")
        for bad in ({"Nope": []}, {"Inventory": [{"productID": "p"}]}, {"Post": {}}, [1]):
            status, answer = self.control("seed", bad)
            self.assertEqual((status, answer["errors"][0]["errorType"]), (400, "BadRequestException"), bad)
        self.assertEqual(self.state()["models"]["Inventory"], 0)  # nothing of a refused seed is kept
        self.control("reset")
        self.assertEqual(self.state()["models"], {"Blog": 0, "Post": 0, "Comment": 0, "Inventory": 0})


if __name__ == "__main__":
    unittest.main()
