// swiftlint:disable all
import Amplify
import Foundation

// Contains the set of classes that conforms to the `Model` protocol. 

final public class AmplifyModels: AmplifyModelRegistration {
  public let version: String = "0b2a4c6e8d1f3a5c7e9b0d2f4a6c8e0b"
  
  public func registerModels(registry: ModelRegistry.Type) {
    ModelRegistry.register(modelType: Project.self)
    ModelRegistry.register(modelType: Todo.self)
    ModelRegistry.register(modelType: Legacy.self)
  }
}
