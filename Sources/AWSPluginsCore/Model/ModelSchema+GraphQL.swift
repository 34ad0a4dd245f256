import Amplify

extension ModelSchema {
    /// The query's field: `getPost`, `listPosts` (the list plural, else the plural, else the name
    /// and an `s`), `syncPosts`.
    public func graphQLName(queryType: GraphQLQueryType) -> String {
        switch queryType {
        case .get: queryType.rawValue + name
        case .list: queryType.rawValue + (listPluralName ?? pluralName ?? name + "s")
        case .sync: queryType.rawValue + (syncPluralName ?? pluralName ?? name + "s")
        }
    }

    /// The subscription's field: `onCreatePost`.
    public func graphQLName(subscriptionType: GraphQLSubscriptionType) -> String { subscriptionType.rawValue + name }

    /// The mutation's field: `createPost`.
    public func graphQLName(mutationType: GraphQLMutationType) -> String { mutationType.rawValue + name }

    /// The fields a document selects: all but `hasMany` lists.
    public var graphQLFields: [ModelField] {
        sortedFields.filter { !$0.hasAssociation || $0.isBelongsToOrHasOne }
    }
}

extension ModelField {
    /// Whether the field is a `belongsTo` or a `hasOne`.
    public var isBelongsToOrHasOne: Bool {
        switch association {
        case .belongsTo, .hasOne: true
        case .hasMany, nil: false
        }
    }

    /// The name a document selects: a `belongsTo`'s key field when the other model is not known
    /// (`postID`), else the field's own.
    public var graphQLName: String {
        if case .belongsTo(_, let targetNames) = association {
            return targetNames.first ?? name.pascalCased() + "Id"
        }
        return name
    }
}

extension AuthRule {
    /// The owner field, `owner` unless the rule names another.
    public func getOwnerFieldOrDefault() -> String { ownerField ?? "owner" }
}
