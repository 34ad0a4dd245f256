import AWSPluginsCore
import Amplify
import Foundation
import GeneratedModelsGen1
import GeneratedModelsGen2
import Testing

/// The generated `Comment`, not Swift Testing's.
typealias BlogComment = GeneratedModelsGen2.Comment

/// Golden documents: what amplify-swift's builder writes for the same models (its rules: the key
/// first, the other fields alphabetically, associations last and one level deep — only their keys
/// for models generated with lazy loading —, `__typename` at every level, arguments sorted).
@Suite("Model GraphQL documents")
struct ModelDocumentTests {
    init() {
        GeneratedModelsGen1.registerGeneratedModels()
        GeneratedModelsGen2.registerGeneratedModels()
    }

    @Test("get by id: one ID! variable; embedded types nested with __typename; a lazy model's belongsTo selects only its key")
    func getById() {
        let request = GraphQLRequest<Post?>.get(Post.self, byId: "p1")
        #expect(
            request.document == """
                query GetPost($id: ID!) {
                  getPost(id: $id) {
                    id
                    createdAt
                    location {
                      lat
                      lng
                      name
                      __typename
                    }
                    postedAt
                    published
                    publishedOn
                    rating
                    score
                    status
                    tags
                    title
                    updatedAt
                    blog {
                      id
                      __typename
                    }
                    __typename
                  }
                }
                """)
        #expect(request.decodePath == "getPost")
        #expect(request.variables?["id"] as? String == "p1")
    }

    @Test("get by a composite identifier: the key's values inline, sorted by name, no variables")
    func getByCompositeIdentifier() {
        let request = GraphQLRequest<Inventory?>.get(
            Inventory.self, byIdentifier: .identifier(productID: "p-1", warehouseID: "w-9"))
        #expect(
            request.document == """
                query GetInventory {
                  getInventory(productID: "p-1", warehouseID: "w-9") {
                    productID
                    warehouseID
                    createdAt
                    name
                    quantity
                    restockedAt
                    updatedAt
                    __typename
                  }
                }
                """)
        // (No variables: amplify-swift's empty object, since the key is inline.)
        #expect(request.variables?.isEmpty == true)
    }

    @Test("list with a predicate: filter and limit variables, items and nextToken; a Gen 1 belongsTo selects the parent's fields")
    func listWithPredicate() throws {
        let request = GraphQLRequest<Todo>.list(Todo.self, where: Todo.keys.done == false && Todo.keys.priority == Priority.high, limit: 20)
        #expect(
            request.document == """
                query ListTodos($filter: ModelTodoFilterInput, $limit: Int) {
                  listTodos(filter: $filter, limit: $limit) {
                    items {
                      id
                      createdAt
                      description
                      done
                      dueOn
                      estimate
                      labels
                      name
                      notes {
                        text
                        writtenAt
                        __typename
                      }
                      priority
                      remindAt
                      updatedAt
                      project {
                        id
                        createdAt
                        name
                        updatedAt
                        __typename
                      }
                      __typename
                    }
                    nextToken
                  }
                }
                """)
        #expect(request.decodePath == "listTodos")
        let variables = try JSONValue(variable: request.variables ?? [:])
        #expect(variables == ["limit": 20, "filter": ["and": [["done": ["eq": false]], ["priority": ["eq": "HIGH"]]]]])
    }

    @Test("list with no limit asks for 1,000; a nextToken to start from becomes a variable")
    func listPaging() throws {
        let first = GraphQLRequest<Blog>.list(Blog.self)
        #expect(first.document.hasPrefix("query ListBlogs($limit: Int) {\n  listBlogs(limit: $limit) {\n    items {"))
        #expect(try JSONValue(variable: first.variables ?? [:]) == ["limit": 1000])
        let next = GraphQLRequest<Blog>.list(Blog.self, limit: 5, nextToken: "t-2")
        #expect(next.document.hasPrefix("query ListBlogs($limit: Int, $nextToken: String) {\n  listBlogs(limit: $limit, nextToken: $nextToken) {"))
        #expect(try JSONValue(variable: next.variables ?? [:]) == ["limit": 5, "nextToken": "t-2"])
    }

    @Test("a predicate on a belongsTo field filters on its key field; temporal values are text, between a pair")
    func filterColumns() throws {
        let filter =
            (BlogComment.keys.post == "p1"
            && Post.keys.publishedOn.between(
                start: try Temporal.Date(iso8601String: "2024-01-01"), end: try Temporal.Date(iso8601String: "2024-12-31")))
            .graphQLFilter(for: BlogComment.schema)
        #expect(
            try JSONValue(variable: filter) == [
                "and": [["postId": ["eq": "p1"]], ["publishedOn": ["between": ["2024-01-01Z", "2024-12-31Z"]]]]
            ])
        #expect(QueryPredicateConstant.all.graphQLFilter(for: nil).isEmpty)
        let text = try GraphQLFilterConverter.toJSON(!(Post.keys.rating < 3), modelSchema: Post.schema)
        #expect(try JSONValue(variable: GraphQLFilterConverter.fromJSON(text)) == ["not": ["rating": ["lt": 3]]])
    }

    @Test("create: the input has the key of the associated model, an owner left nil is left out for the service to fill")
    func create() throws {
        let post = Post(id: "p1", title: "T", status: .draft)
        let request = GraphQLRequest<BlogComment>.create(BlogComment(id: "c1", content: "hi", post: post))
        #expect(
            request.document == """
                mutation CreateComment($input: CreateCommentInput!) {
                  createComment(input: $input) {
                    id
                    content
                    createdAt
                    owner
                    updatedAt
                    post {
                      id
                      __typename
                    }
                    __typename
                  }
                }
                """)
        #expect(try JSONValue(variable: request.variables ?? [:]) == ["input": ["id": "c1", "content": "hi", "postId": "p1"]])
    }

    @Test("create of a Gen 1 model: enums by name, dates as AppSync writes them, embedded types as objects, nil fields left out")
    func createInputs() throws {
        let todo = try Todo.from(
            json:
                #"{"id":"t1","name":"n","done":true,"priority":"LOW","dueOn":"2024-05-10","remindAt":"09:30","labels":["a"],"notes":[{"text":"x"}]}"#)
        let request = GraphQLRequest<Todo>.create(todo)
        #expect(
            try JSONValue(variable: request.variables ?? [:]) == [
                "input": [
                    "id": "t1", "name": "n", "done": true, "priority": "LOW", "dueOn": "2024-05-10Z", "remindAt": "09:30:00.000Z", "labels": ["a"],
                    "notes": [["text": "x"]],
                ]
            ])
    }

    @Test("update with a condition and a version: condition variable, _version in the input, nil fields sent as null")
    func updateWithConditionAndVersion() throws {
        let post = Post(id: "p1", title: "T", status: .published, rating: nil)
        let request = GraphQLRequest<Post>.update(post, where: Post.keys.status == PostStatus.draft, version: 3)
        #expect(
            request.document.hasPrefix(
                "mutation UpdatePost($condition: ModelPostConditionInput, $input: UpdatePostInput!) {\n  updatePost(condition: $condition, input: $input) {"
            ))
        let variables = try JSONValue(variable: request.variables ?? [:])
        #expect(variables["condition"] == ["status": ["eq": "DRAFT"]])
        #expect(variables["input"]?["_version"] == 3)
        #expect(variables["input"]?["rating"] == .null)
        #expect(variables["input"]?["blogId"] == .null)
        #expect(variables["input"]?["title"] == "T")
    }

    @Test("delete: the input is the key alone; a composite key's fields all go in")
    func delete() throws {
        let request = GraphQLRequest<Inventory>.delete(Inventory(productID: "p-1", warehouseID: "w-9", name: "bolt", quantity: 1))
        #expect(request.document.hasPrefix("mutation DeleteInventory($input: DeleteInventoryInput!) {\n  deleteInventory(input: $input) {"))
        #expect(try JSONValue(variable: request.variables ?? [:]) == ["input": ["productID": "p-1", "warehouseID": "w-9"]])
    }

    @Test("subscription: no arguments, the model's selection")
    func subscription() {
        let request = GraphQLRequest<Blog>.subscription(of: Blog.self, type: .onCreate)
        #expect(
            request.document == """
                subscription OnCreateBlog {
                  onCreateBlog {
                    id
                    createdAt
                    name
                    updatedAt
                    __typename
                  }
                }
                """)
        #expect(request.decodePath == "onCreateBlog")
    }

    @Test("includes: a hasMany asked for is added after the model's fields, as items with the child's fields and keys")
    func includes() {
        let request = GraphQLRequest<Post?>.get(Post.self, byId: "p1", includes: { post in [post.comments] })
        #expect(
            request.document.hasSuffix(
                """
                    blog {
                      id
                      __typename
                    }
                    __typename
                    comments {
                      items {
                        id
                        content
                        createdAt
                        owner
                        updatedAt
                        post {
                          id
                          __typename
                        }
                        __typename
                      }
                    }
                  }
                }
                """))
    }
}
