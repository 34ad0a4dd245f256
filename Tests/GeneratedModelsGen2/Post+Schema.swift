// swiftlint:disable all
import Amplify
import Foundation

extension Post {
  // MARK: - CodingKeys 
   public enum CodingKeys: String, ModelKey {
    case id
    case title
    case status
    case rating
    case score
    case published
    case tags
    case location
    case publishedOn
    case postedAt
    case blog
    case comments
    case createdAt
    case updatedAt
  }
  
  public static let keys = CodingKeys.self
  //  MARK: - ModelSchema 
  
  public static let schema = defineSchema { model in
    let post = Post.keys
    
    model.authRules = [
      rule(allow: .public, provider: .apiKey, operations: [.create, .update, .delete, .read])
    ]
    
    model.listPluralName = "Posts"
    model.syncPluralName = "Posts"
    
    model.attributes(
      .index(fields: ["blogId"], name: "postsByBlog"),
      .primaryKey(fields: [post.id])
    )
    
    model.fields(
      .field(post.id, is: .required, ofType: .string),
      .field(post.title, is: .required, ofType: .string),
      .field(post.status, is: .required, ofType: .enum(type: PostStatus.self)),
      .field(post.rating, is: .optional, ofType: .int),
      .field(post.score, is: .optional, ofType: .double),
      .field(post.published, is: .optional, ofType: .bool),
      .field(post.tags, is: .optional, ofType: .embeddedCollection(of: String.self)),
      .field(post.location, is: .optional, ofType: .embedded(type: Location.self)),
      .field(post.publishedOn, is: .optional, ofType: .date),
      .field(post.postedAt, is: .optional, ofType: .time),
      .belongsTo(post.blog, is: .optional, ofType: Blog.self, targetNames: ["blogId"]),
      .hasMany(post.comments, is: .optional, ofType: Comment.self, associatedFields: [Comment.keys.post]),
      .field(post.createdAt, is: .optional, isReadOnly: true, ofType: .dateTime),
      .field(post.updatedAt, is: .optional, isReadOnly: true, ofType: .dateTime)
    )
    }
    public class Path: ModelPath<Post> { }
    
    public static var rootPath: PropertyContainerPath? { Path() }
}

extension Post: ModelIdentifiable {
  public typealias IdentifierFormat = ModelIdentifierFormat.Default
  public typealias IdentifierProtocol = DefaultModelIdentifier<Self>
}
extension ModelPath where ModelType == Post {
  public var id: FieldPath<String>   {
      string("id") 
    }
  public var title: FieldPath<String>   {
      string("title") 
    }
  public var rating: FieldPath<Int>   {
      int("rating") 
    }
  public var score: FieldPath<Double>   {
      double("score") 
    }
  public var published: FieldPath<Bool>   {
      bool("published") 
    }
  public var tags: FieldPath<String>   {
      string("tags") 
    }
  public var publishedOn: FieldPath<Temporal.Date>   {
      date("publishedOn") 
    }
  public var postedAt: FieldPath<Temporal.Time>   {
      time("postedAt") 
    }
  public var blog: ModelPath<Blog>   {
      Blog.Path(name: "blog", parent: self) 
    }
  public var comments: ModelPath<Comment>   {
      Comment.Path(name: "comments", isCollection: true, parent: self) 
    }
  public var createdAt: FieldPath<Temporal.DateTime>   {
      datetime("createdAt") 
    }
  public var updatedAt: FieldPath<Temporal.DateTime>   {
      datetime("updatedAt") 
    }
}
