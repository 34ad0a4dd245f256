// swiftlint:disable all
import Amplify
import Foundation

public struct Post: Model {
  public let id: String
  public var title: String
  public var status: PostStatus
  public var rating: Int?
  public var score: Double?
  public var published: Bool?
  public var tags: [String?]?
  public var location: Location?
  public var publishedOn: Temporal.Date?
  public var postedAt: Temporal.Time?
  internal var _blog: LazyReference<Blog>
  public var blog: Blog?   {
      get async throws { 
        try await _blog.get()
      } 
    }
  public var comments: List<Comment>?
  public var createdAt: Temporal.DateTime?
  public var updatedAt: Temporal.DateTime?
  
  public init(id: String = UUID().uuidString,
      title: String,
      status: PostStatus,
      rating: Int? = nil,
      score: Double? = nil,
      published: Bool? = nil,
      tags: [String?]? = nil,
      location: Location? = nil,
      publishedOn: Temporal.Date? = nil,
      postedAt: Temporal.Time? = nil,
      blog: Blog? = nil,
      comments: List<Comment>? = []) {
    self.init(id: id,
      title: title,
      status: status,
      rating: rating,
      score: score,
      published: published,
      tags: tags,
      location: location,
      publishedOn: publishedOn,
      postedAt: postedAt,
      blog: blog,
      comments: comments,
      createdAt: nil,
      updatedAt: nil)
  }
  internal init(id: String = UUID().uuidString,
      title: String,
      status: PostStatus,
      rating: Int? = nil,
      score: Double? = nil,
      published: Bool? = nil,
      tags: [String?]? = nil,
      location: Location? = nil,
      publishedOn: Temporal.Date? = nil,
      postedAt: Temporal.Time? = nil,
      blog: Blog? = nil,
      comments: List<Comment>? = [],
      createdAt: Temporal.DateTime? = nil,
      updatedAt: Temporal.DateTime? = nil) {
      self.id = id
      self.title = title
      self.status = status
      self.rating = rating
      self.score = score
      self.published = published
      self.tags = tags
      self.location = location
      self.publishedOn = publishedOn
      self.postedAt = postedAt
      self._blog = LazyReference(blog)
      self.comments = comments
      self.createdAt = createdAt
      self.updatedAt = updatedAt
  }
  public mutating func setBlog(_ blog: Blog? = nil) {
    self._blog = LazyReference(blog)
  }
  public init(from decoder: Decoder) throws {
      let values = try decoder.container(keyedBy: CodingKeys.self)
      id = try values.decode(String.self, forKey: .id)
      title = try values.decode(String.self, forKey: .title)
      status = try values.decode(PostStatus.self, forKey: .status)
      rating = try? values.decode(Int?.self, forKey: .rating)
      score = try? values.decode(Double?.self, forKey: .score)
      published = try? values.decode(Bool?.self, forKey: .published)
      tags = try? values.decode([String?].self, forKey: .tags)
      location = try? values.decode(Location?.self, forKey: .location)
      publishedOn = try? values.decode(Temporal.Date?.self, forKey: .publishedOn)
      postedAt = try? values.decode(Temporal.Time?.self, forKey: .postedAt)
      _blog = try values.decodeIfPresent(LazyReference<Blog>.self, forKey: .blog) ?? LazyReference(identifiers: nil)
      comments = try values.decodeIfPresent(List<Comment>?.self, forKey: .comments) ?? .init()
      createdAt = try? values.decode(Temporal.DateTime?.self, forKey: .createdAt)
      updatedAt = try? values.decode(Temporal.DateTime?.self, forKey: .updatedAt)
  }
  public func encode(to encoder: Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(id, forKey: .id)
      try container.encode(title, forKey: .title)
      try container.encode(status, forKey: .status)
      try container.encode(rating, forKey: .rating)
      try container.encode(score, forKey: .score)
      try container.encode(published, forKey: .published)
      try container.encode(tags, forKey: .tags)
      try container.encode(location, forKey: .location)
      try container.encode(publishedOn, forKey: .publishedOn)
      try container.encode(postedAt, forKey: .postedAt)
      try container.encode(_blog, forKey: .blog)
      try container.encode(comments, forKey: .comments)
      try container.encode(createdAt, forKey: .createdAt)
      try container.encode(updatedAt, forKey: .updatedAt)
  }
}
