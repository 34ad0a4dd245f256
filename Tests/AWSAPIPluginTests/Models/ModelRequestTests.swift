import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import AmplifyTestKit
import Foundation
import GeneratedModelsGen2
import Testing

/// The generated `Comment`, not Swift Testing's.
private typealias BlogComment = GeneratedModelsGen2.Comment

/// What the app's generated `AmplifyModels` does, for a test outside the models' module.
private struct BlogModels: AmplifyModelRegistration {
    let version = "test"
    func registerModels(registry: ModelRegistry.Type) { registerGeneratedModels() }
}

/// Model-based requests against the AppSync stand-in serving the Gen 2 models' introspection, the
/// way the transformer's resolvers answer them.
@Suite("Model requests against the model stand-in", .serialized)
struct ModelRequestTests {
    static let options = AppSyncServer.Options(apiKeys: [APIFixture.apiKey], models: "Tests/Fixtures/ModelIntrospection/blog.json")

    /// Runs `body` with a plugin that knows the models, pointed at the stand-in serving them; the
    /// plugin and its loop are closed whether `body` throws or not.
    private func withModelServer(_ body: (APIFixture) async throws -> Void) async throws {
        try await AppSyncServer.with(Self.options) { server in
            let fixture = try APIFixture(server: server, modelRegistration: BlogModels())
            do {
                try await body(fixture)
            } catch {
                try await fixture.close()
                throw error
            }
            try await fixture.close()
        }
    }

    @Test("create, get by id, update with a condition that holds and one that does not, delete: each through a generated model")
    func createGetUpdateDelete() async throws {
        try await withModelServer { fixture in
            let blog = try await fixture.plugin.mutate(request: .create(Blog(name: "Notes"))).get()
            var post = Post(title: "First", status: .draft, rating: 3, blog: blog)
            post = try await fixture.plugin.mutate(request: .create(post)).get()
            #expect(post.createdAt != nil)
            let fetched = try #require(try await fixture.plugin.query(request: .get(Post.self, byId: post.id)).get())
            #expect(fetched.title == "First")
            #expect(fetched.status == .draft)

            var changed = fetched
            changed.title = "Second"
            let updated = try await fixture.plugin.mutate(request: .update(changed, where: Post.keys.status == PostStatus.draft)).get()
            #expect(updated.title == "Second")

            changed.title = "Third"
            let refused = try await fixture.plugin.mutate(request: .update(changed, where: Post.keys.status == PostStatus.published))
            guard case .failure(.error(let errors)) = refused else {
                Issue.record("an update whose condition fails was not refused: \(refused)")
                return
            }
            #expect(errors.first?.extensions?["errorType"]?.stringValue?.contains("ConditionalCheckFailed") == true)

            _ = try await fixture.plugin.mutate(request: .delete(updated)).get()
            #expect(try await fixture.plugin.query(request: .get(Post.self, byId: post.id)).get() == nil)
        }
    }

    @Test("a list pages with nextToken: 25 posts at 10 a page are 10, 10 and 5, and a predicate filters on the server")
    func paging() async throws {
        try await withModelServer { fixture in
            for index in 0..<25 {
                _ = try await fixture.plugin.mutate(
                    request: .create(Post(id: String(format: "p%02d", index), title: "Post \(index)", status: index % 5 == 0 ? .published : .draft))
                ).get()
            }
            var page = try await fixture.plugin.query(request: .list(Post.self, limit: 10)).get()
            var sizes = [page.count]
            var ids = Set(page.map(\.id))
            while page.hasNextPage() {
                #expect(page.nextToken != nil)
                page = try await page.getNextPage()
                sizes.append(page.count)
                ids.formUnion(page.map(\.id))
            }
            #expect(sizes == [10, 10, 5])
            #expect(ids.count == 25)
            await #expect(throws: CoreError.self) { try await page.getNextPage() }

            let published = try await fixture.plugin.query(request: .list(Post.self, where: Post.keys.status == PostStatus.published)).get()
            #expect(Set(published.map(\.id)) == ["p00", "p05", "p10", "p15", "p20"])
        }
    }

    @Test("a composite key: create, then get by both fields inline")
    func compositeKey() async throws {
        try await withModelServer { fixture in
            _ = try await fixture.plugin.mutate(request: .create(Inventory(productID: "p-1", warehouseID: "w-9", name: "bolt", quantity: 4))).get()
            let item = try await fixture.plugin.query(
                request: .get(Inventory.self, byIdentifier: .identifier(productID: "p-1", warehouseID: "w-9"))
            ).get()
            #expect(item?.quantity == 4)
            let missing = try await fixture.plugin.query(
                request: .get(Inventory.self, byIdentifier: .identifier(productID: "p-1", warehouseID: "w-8"))
            ).get()
            #expect(missing == nil)
        }
    }

    @Test("a reference that came as its key loads its model through the same plugin on first get()")
    func lazyReference() async throws {
        try await withModelServer { fixture in
            let post = try await fixture.plugin.mutate(request: .create(Post(id: "p1", title: "Parent", status: .published))).get()
            let comment = try await fixture.plugin.mutate(request: .create(BlogComment(id: "c1", content: "hi", post: post))).get()
            let fetched = try #require(try await fixture.plugin.query(request: .get(BlogComment.self, byId: comment.id)).get())
            let parent = try await fetched.post
            #expect(parent?.title == "Parent")
            #expect(parent?.id == "p1")
        }
    }
}
