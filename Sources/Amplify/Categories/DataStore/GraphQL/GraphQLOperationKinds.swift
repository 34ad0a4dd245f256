/// The model queries AppSync's transformer generates: `getX`, `listXs`, `syncXs`.
public enum GraphQLQueryType: String, Sendable {
    /// One model by its key.
    case get
    /// A page of models.
    case list
    /// Changes since a time (DataStore's).
    case sync
}

/// The model mutations: `createX`, `updateX`, `deleteX`.
public enum GraphQLMutationType: String, Codable, Sendable {
    /// Creates a model.
    case create
    /// Updates a model.
    case update
    /// Deletes a model.
    case delete
}

/// The model subscriptions: `onCreateX`, `onUpdateX`, `onDeleteX`.
public enum GraphQLSubscriptionType: String, Sendable {
    /// A model was created.
    case onCreate
    /// A model was deleted.
    case onDelete
    /// A model was updated.
    case onUpdate
}
