// swiftlint:disable all
import Amplify
import Foundation

public struct Inventory: Model {
  public let productID: String
  public let warehouseID: String
  public var name: String
  public var quantity: Int
  public var restockedAt: Temporal.DateTime?
  public var createdAt: Temporal.DateTime?
  public var updatedAt: Temporal.DateTime?
  
  public init(productID: String,
      warehouseID: String,
      name: String,
      quantity: Int,
      restockedAt: Temporal.DateTime? = nil) {
    self.init(productID: productID,
      warehouseID: warehouseID,
      name: name,
      quantity: quantity,
      restockedAt: restockedAt,
      createdAt: nil,
      updatedAt: nil)
  }
  internal init(productID: String,
      warehouseID: String,
      name: String,
      quantity: Int,
      restockedAt: Temporal.DateTime? = nil,
      createdAt: Temporal.DateTime? = nil,
      updatedAt: Temporal.DateTime? = nil) {
      self.productID = productID
      self.warehouseID = warehouseID
      self.name = name
      self.quantity = quantity
      self.restockedAt = restockedAt
      self.createdAt = createdAt
      self.updatedAt = updatedAt
  }
}
