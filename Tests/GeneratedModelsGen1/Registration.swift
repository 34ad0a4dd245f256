// Not generated: the one entry point the tests need, since the generated `AmplifyModels` has
// only the implicit internal initialiser an app's own module calls.
import Amplify

/// Registers this module's models, as an app calls `AmplifyModels().registerModels(registry:)`.
public func registerGeneratedModels() {
    AmplifyModels().registerModels(registry: ModelRegistry.self)
}
