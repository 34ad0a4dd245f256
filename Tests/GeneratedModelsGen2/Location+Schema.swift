// swiftlint:disable all
import Amplify
import Foundation

extension Location {
  // MARK: - CodingKeys 
   public enum CodingKeys: String, ModelKey {
    case lat
    case lng
    case name
  }
  
  public static let keys = CodingKeys.self
  //  MARK: - ModelSchema 
  
  public static let schema = defineSchema { model in
    let location = Location.keys
    
    model.listPluralName = "Locations"
    model.syncPluralName = "Locations"
    
    model.fields(
      .field(location.lat, is: .required, ofType: .double),
      .field(location.lng, is: .required, ofType: .double),
      .field(location.name, is: .optional, ofType: .string)
    )
    }
}
