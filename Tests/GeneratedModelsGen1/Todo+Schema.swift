// swiftlint:disable all
import Amplify
import Foundation

extension Todo {
  // MARK: - CodingKeys 
   public enum CodingKeys: String, ModelKey {
    case id
    case name
    case description
    case done
    case priority
    case dueOn
    case remindAt
    case estimate
    case notes
    case labels
    case project
    case createdAt
    case updatedAt
  }
  
  public static let keys = CodingKeys.self
  //  MARK: - ModelSchema 
  
  public static let schema = defineSchema { model in
    let todo = Todo.keys
    
    model.authRules = [
      rule(allow: .owner, ownerField: "owner", identityClaim: "cognito:username", provider: .userPools, operations: [.create, .update, .delete, .read])
    ]
    
    model.pluralName = "Todos"
    
    model.attributes(
      .index(fields: ["projectID", "name"], name: "todosByProject"),
      .primaryKey(fields: [todo.id])
    )
    
    model.fields(
      .field(todo.id, is: .required, ofType: .string),
      .field(todo.name, is: .required, ofType: .string),
      .field(todo.description, is: .optional, ofType: .string),
      .field(todo.done, is: .required, ofType: .bool),
      .field(todo.priority, is: .optional, ofType: .enum(type: Priority.self)),
      .field(todo.dueOn, is: .optional, ofType: .date),
      .field(todo.remindAt, is: .optional, ofType: .time),
      .field(todo.estimate, is: .optional, ofType: .double),
      .field(todo.notes, is: .optional, ofType: .embeddedCollection(of: Note.self)),
      .field(todo.labels, is: .required, ofType: .embeddedCollection(of: String.self)),
      .belongsTo(todo.project, is: .optional, ofType: Project.self, targetName: "projectID"),
      .field(todo.createdAt, is: .optional, isReadOnly: true, ofType: .dateTime),
      .field(todo.updatedAt, is: .optional, isReadOnly: true, ofType: .dateTime)
    )
    }
}

extension Todo: ModelIdentifiable {
  public typealias IdentifierFormat = ModelIdentifierFormat.Default
  public typealias IdentifierProtocol = DefaultModelIdentifier<Self>
}
