// swiftlint:disable all
import Amplify
import Foundation

public struct Todo: Model {
  public let id: String
  public var name: String
  public var description: String?
  public var done: Bool
  public var priority: Priority?
  public var dueOn: Temporal.Date?
  public var remindAt: Temporal.Time?
  public var estimate: Double?
  public var notes: [Note]?
  public var labels: [String]
  public var project: Project?
  public var createdAt: Temporal.DateTime?
  public var updatedAt: Temporal.DateTime?
  
  public init(id: String = UUID().uuidString,
      name: String,
      description: String? = nil,
      done: Bool,
      priority: Priority? = nil,
      dueOn: Temporal.Date? = nil,
      remindAt: Temporal.Time? = nil,
      estimate: Double? = nil,
      notes: [Note]? = nil,
      labels: [String] = [],
      project: Project? = nil) {
    self.init(id: id,
      name: name,
      description: description,
      done: done,
      priority: priority,
      dueOn: dueOn,
      remindAt: remindAt,
      estimate: estimate,
      notes: notes,
      labels: labels,
      project: project,
      createdAt: nil,
      updatedAt: nil)
  }
  internal init(id: String = UUID().uuidString,
      name: String,
      description: String? = nil,
      done: Bool,
      priority: Priority? = nil,
      dueOn: Temporal.Date? = nil,
      remindAt: Temporal.Time? = nil,
      estimate: Double? = nil,
      notes: [Note]? = nil,
      labels: [String] = [],
      project: Project? = nil,
      createdAt: Temporal.DateTime? = nil,
      updatedAt: Temporal.DateTime? = nil) {
      self.id = id
      self.name = name
      self.description = description
      self.done = done
      self.priority = priority
      self.dueOn = dueOn
      self.remindAt = remindAt
      self.estimate = estimate
      self.notes = notes
      self.labels = labels
      self.project = project
      self.createdAt = createdAt
      self.updatedAt = updatedAt
  }
}
