// swiftlint:disable all
import Amplify
import Foundation

extension Inventory {
  // MARK: - CodingKeys 
   public enum CodingKeys: String, ModelKey {
    case productID
    case warehouseID
    case name
    case quantity
    case restockedAt
    case createdAt
    case updatedAt
  }
  
  public static let keys = CodingKeys.self
  //  MARK: - ModelSchema 
  
  public static let schema = defineSchema { model in
    let inventory = Inventory.keys
    
    model.authRules = [
      rule(allow: .private, provider: .iam, operations: [.create, .update, .delete, .read]),
      rule(allow: .public, provider: .apiKey, operations: [.read])
    ]
    
    model.listPluralName = "Inventories"
    model.syncPluralName = "Inventories"
    
    model.attributes(
      .index(fields: ["productID", "warehouseID"], name: nil),
      .index(fields: ["name"], name: "inventoriesByName"),
      .primaryKey(fields: [inventory.productID, inventory.warehouseID])
    )
    
    model.fields(
      .field(inventory.productID, is: .required, ofType: .string),
      .field(inventory.warehouseID, is: .required, ofType: .string),
      .field(inventory.name, is: .required, ofType: .string),
      .field(inventory.quantity, is: .required, ofType: .int),
      .field(inventory.restockedAt, is: .optional, ofType: .dateTime),
      .field(inventory.createdAt, is: .optional, isReadOnly: true, ofType: .dateTime),
      .field(inventory.updatedAt, is: .optional, isReadOnly: true, ofType: .dateTime)
    )
    }
    public class Path: ModelPath<Inventory> { }
    
    public static var rootPath: PropertyContainerPath? { Path() }
}

extension Inventory: ModelIdentifiable {
  public typealias IdentifierFormat = ModelIdentifierFormat.Custom
  public typealias IdentifierProtocol = ModelIdentifier<Self, ModelIdentifierFormat.Custom>
}

extension Inventory.IdentifierProtocol {
  public static func identifier(productID: String,
      warehouseID: String) -> Self {
    .make(fields:[(name: "productID", value: productID), (name: "warehouseID", value: warehouseID)])
  }
}
extension ModelPath where ModelType == Inventory {
  public var productID: FieldPath<String>   {
      string("productID") 
    }
  public var warehouseID: FieldPath<String>   {
      string("warehouseID") 
    }
  public var name: FieldPath<String>   {
      string("name") 
    }
  public var quantity: FieldPath<Int>   {
      int("quantity") 
    }
  public var restockedAt: FieldPath<Temporal.DateTime>   {
      datetime("restockedAt") 
    }
  public var createdAt: FieldPath<Temporal.DateTime>   {
      datetime("createdAt") 
    }
  public var updatedAt: FieldPath<Temporal.DateTime>   {
      datetime("updatedAt") 
    }
}
