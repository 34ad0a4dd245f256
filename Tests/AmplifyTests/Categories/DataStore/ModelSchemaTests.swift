import Amplify
import Foundation
import GeneratedModelsGen1
import GeneratedModelsGen2
import Testing

/// The generated `Comment`, not Swift Testing's.
typealias BlogComment = GeneratedModelsGen2.Comment

@Suite("Generated model schemas")
struct ModelSchemaTests {
    @Test("a Gen 2 schema: name, plurals, primary key, fields in document order, associations, indexes, auth rules")
    func gen2Schema() throws {
        let schema = Post.schema
        #expect(schema.name == "Post")
        #expect(schema.listPluralName == "Posts")
        #expect(schema.primaryKey.fields.map(\.name) == ["id"])
        #expect(
            schema.sortedFields.map(\.name) == [
                "id", "createdAt", "location", "postedAt", "published", "publishedOn", "rating", "score", "status", "tags", "title",
                "updatedAt", "blog", "comments",
            ])
        let blog = try #require(schema.field(withName: "blog"))
        #expect(blog.association == .belongsTo(associatedFieldName: nil, targetNames: ["blogId"]))
        #expect(blog.associatedModelName == "Blog")
        #expect(blog.isAssociationOwner)
        let comments = try #require(schema.field(withName: "comments"))
        #expect(comments.association == .hasMany(associatedFieldName: "post", associatedFieldNames: ["post"]))
        #expect(comments.isArray)
        #expect(schema.indexes == [.index(fields: ["blogId"], name: "postsByBlog")])
        #expect(schema.authRules == [AuthRule(allow: .public, provider: .apiKey, operations: [.create, .update, .delete, .read])])
        #expect(schema.field(withName: "createdAt")?.isReadOnly == true)
        #expect(schema.field(withName: "status")?.isRequired == true)
        guard case .enum(let type) = schema.field(withName: "status")?.type else {
            Issue.record("status is not an enum field")
            return
        }
        #expect(type.init(rawValue: "DRAFT")?.rawValue == "DRAFT")
        #expect(schema.field(withName: "location")?.embeddedTypeSchema?.fields.keys.sorted() == ["lat", "lng", "name"])
        #expect(BlogComment.schema.authRules.map(\.allow) == [.owner, .groups])
        #expect(BlogComment.schema.authRules.first?.ownerField == "owner")
    }

    @Test("a composite key: its fields in order, an identifier that quotes and joins them, a predicate on both")
    func compositeKey() throws {
        let schema = Inventory.schema
        #expect(schema.primaryKey.fields.map(\.name) == ["productID", "warehouseID"])
        #expect(schema.primaryKey.isCompositeKey)
        #expect(schema.sortedFields.prefix(2).map(\.name) == ["productID", "warehouseID"])
        let item = Inventory(productID: "p-1", warehouseID: "w-9", name: "bolt", quantity: 3)
        #expect(item.identifier == ##""p-1"#"w-9""##)
        let identifier = Inventory.IdentifierProtocol.identifier(productID: "p-1", warehouseID: "w-9")
        #expect(identifier.keys == ["productID", "warehouseID"])
        #expect(identifier.predicate.evaluate(target: item))
        #expect(!identifier.predicate.evaluate(target: Inventory(productID: "p-1", warehouseID: "w-8", name: "bolt", quantity: 3)))
    }

    @Test("Gen 1 files: pluralName, a hasMany by associatedWith, belongsTo by targetName, the legacy .id() key")
    func gen1Schema() {
        #expect(Todo.schema.pluralName == "Todos")
        #expect(Todo.schema.field(withName: "project")?.association == .belongsTo(associatedFieldName: nil, targetNames: ["projectID"]))
        #expect(Project.schema.field(withName: "todos")?.association == .hasMany(associatedFieldName: "project", associatedFieldNames: []))
        #expect(Legacy.schema.primaryKey.fields.map(\.name) == ["id"])
        #expect(Legacy(id: "L1", title: "t").identifier == "L1")
        #expect(Note.schema.primaryKey.fields.isEmpty)
    }

    @Test("AmplifyModels registers every model: types, schemas and decoders by name; an unknown name is a clear error")
    func registry() throws {
        GeneratedModelsGen2.registerGeneratedModels()
        #expect(ModelRegistry.modelType(from: "Inventory").map(ObjectIdentifier.init) == ObjectIdentifier(Inventory.self))
        #expect(ModelRegistry.modelSchema(from: "Comment")?.name == "Comment")
        let decoded = try ModelRegistry.decode(modelName: "Blog", from: #"{"id":"b1","name":"Notes","posts":[]}"#)
        #expect((decoded as? Blog)?.name == "Notes")
        #expect(Post.schema.field(withName: "comments")?.associatedField?.name == "post")
        #expect {
            try ModelRegistry.decode(modelName: "Nope", from: "{}")
        } throws: { error in
            (error as? DataStoreError)?.errorDescription.contains("Nope") == true
        }
    }

    @Test("model paths name their keys from the root: a field, an association, a list")
    func paths() throws {
        let root = try #require(BlogComment.rootPath as? ModelPath<BlogComment>)
        #expect(root.isRoot())
        #expect(root.post.getKeyPath() == "post")
        #expect(root.post.comments.getMetadata().isCollection)
        #expect(root.post.comments.getKeyPath() == "post.comments")
        #expect(ObjectIdentifier(root.post.blog.getModelType()) == ObjectIdentifier(Blog.self))
    }
}
