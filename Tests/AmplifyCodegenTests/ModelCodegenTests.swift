import AmplifyCodegen
import Testing

@Suite("Model codegen")
struct ModelCodegenTests {
    static func file(_ name: String, from json: String) throws -> String? {
        try ModelCodegen.files(from: Array(json.utf8)).first { $0.name == name }?.text
    }

    static let introspection = """
        {"version": 1, "models": {"Task": {"name": "Task", "pluralName": "Tasks",
          "fields": {
            "id": {"name": "id", "isArray": false, "type": "ID", "isRequired": true, "attributes": []},
            "state": {"name": "state", "isArray": false, "type": {"enum": "TaskState"}, "isRequired": false, "attributes": []},
            "due": {"name": "due", "isArray": false, "type": "AWSTimestamp", "isRequired": false, "attributes": []},
            "ownerId": {"name": "ownerId", "isArray": false, "type": "ID", "isRequired": false, "attributes": []},
            "owner": {"name": "owner", "isArray": false, "type": {"model": "Task"}, "isRequired": true, "attributes": [],
                      "association": {"connectionType": "BELONGS_TO", "targetNames": ["ownerId"]}}},
          "attributes": [{"type": "model", "properties": {}}, {"type": "key", "properties": {"fields": ["id"]}}],
          "primaryKeyInfo": {"isCustomPrimaryKey": false, "primaryKeyFieldName": "id", "sortKeyFieldNames": []}}},
         "enums": {"TaskState": {"name": "TaskState", "values": ["IN_PROGRESS", "DONE", "DEFAULT"]}},
         "nonModels": {}}
        """

    @Test("enum values become camelCase cases, keywords in backticks, raw values as written")
    func enumCases() throws {
        let text = try #require(try Self.file("TaskState.swift", from: Self.introspection))
        #expect(text.contains("  case inProgress = \"IN_PROGRESS\"\n  case done = \"DONE\"\n  case `default` = \"DEFAULT\"\n"))
    }

    @Test("a belongsTo's key field is hidden behind the lazy reference; a required reference reads with require(); a timestamp is an Int")
    func belongsToAndScalars() throws {
        let text = try #require(try Self.file("Task.swift", from: Self.introspection))
        #expect(!text.contains("ownerId"))
        #expect(text.contains("  internal var _owner: LazyReference<Task>\n  public var owner: Task   {"))
        #expect(text.contains("try await _owner.require()"))
        #expect(text.contains("  public var due: Int?\n"))
        let schema = try #require(try Self.file("Task+Schema.swift", from: Self.introspection))
        #expect(schema.contains(".belongsTo(task.owner, is: .required, ofType: Task.self, targetNames: [\"ownerId\"])"))
        #expect(schema.contains(".field(task.state, is: .optional, ofType: .enum(type: TaskState.self))"))
    }

    @Test("the schema's version is a digest of the introspection: the same text, the same version; another text, another")
    func version() throws {
        let one = try #require(try Self.file("AmplifyModels.swift", from: Self.introspection))
        #expect(one == (try Self.file("AmplifyModels.swift", from: Self.introspection)))
        #expect(one != (try Self.file("AmplifyModels.swift", from: Self.introspection + " ")))
    }

    @Test("malformed text is refused with the byte where it went wrong")
    func malformed() {
        #expect {
            try ModelCodegen.files(from: Array(#"{"models": {"A": [1, 2}}"#.utf8))
        } throws: { error in
            (error as? CodegenError)?.description.contains("at byte 22") == true
        }
    }
}
