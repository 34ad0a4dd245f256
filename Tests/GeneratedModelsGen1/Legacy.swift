// swiftlint:disable all
import Amplify
import Foundation

public struct Legacy: Model {
  public let id: String
  public var title: String
  
  public init(id: String = UUID().uuidString,
      title: String) {
      self.id = id
      self.title = title
  }
}

extension Legacy {
  // MARK: - CodingKeys 
   public enum CodingKeys: String, ModelKey {
    case id
    case title
  }
  
  public static let keys = CodingKeys.self
  //  MARK: - ModelSchema 
  
  public static let schema = defineSchema { model in
    let legacy = Legacy.keys
    
    model.pluralName = "Legacies"
    
    model.fields(
      .id(),
      .field(legacy.title, is: .required, ofType: .string)
    )
    }
}
