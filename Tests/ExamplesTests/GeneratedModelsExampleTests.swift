import AmplifyTestKit
import Foundation
import Testing

@Suite("Examples/GeneratedModels")
struct GeneratedModelsExampleTests {
    @Test(
        "the build-tool plugin generated the models from the example's amplify_outputs.json: they register, keep their keys and field order, and evaluate predicates"
    )
    func modelsFromOutputs() async throws {
        let run = try await ProductRunner.run("GeneratedModels")
        #expect(run.exitCode == 0, "\(run.stderr)")
        #expect(
            run.stdout == """
                Blog [id]: id, createdAt, name, updatedAt, posts
                Comment [id]: id, content, createdAt, owner, updatedAt, post
                Inventory [productID+warehouseID]: productID, warehouseID, createdAt, name, quantity, restockedAt, updatedAt
                Post [id]: id, createdAt, location, postedAt, published, publishedOn, rating, score, status, tags, title, updatedAt, blog, comments
                rating >= 4 and published: true

                """)
    }
}
