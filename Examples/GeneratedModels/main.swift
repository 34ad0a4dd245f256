// Models generated at build time by the AmplifyModelGen build-tool plugin from this folder's
// amplify_outputs.json (nothing generated is checked in): registers them and prints each model's
// name, key and fields, and a predicate evaluated in process.
import Amplify

AmplifyModels().registerModels(registry: ModelRegistry.self)
for schema in ModelRegistry.modelSchemas.sorted(by: { $0.name < $1.name }) {
    let key = schema.primaryKey.fields.map(\.name).joined(separator: "+")
    print("\(schema.name) [\(key)]: \(schema.sortedFields.map(\.name).joined(separator: ", "))")
}
let post = Post(title: "Generated at build time", status: .published, rating: 5)
print("rating >= 4 and published: \((Post.keys.rating >= 4 && Post.keys.status == PostStatus.published).evaluate(target: post))")
