/// A Hub channel: one per category, plus any number of custom ones.
public enum HubChannel: Sendable, Hashable {
    /// The channel of each Amplify category.
    case analytics, api, auth, dataStore, geo, hub, logging, predictions, pushNotifications, storage
    /// A channel of the application's own.
    case custom(String)

    /// Every built-in channel (those `Amplify.configured` goes to).
    public static let amplifyChannels: [HubChannel] = [
        .analytics, .api, .auth, .dataStore, .geo, .hub, .logging, .predictions, .pushNotifications, .storage,
    ]

    /// The channel of a category.
    public init(from category: CategoryType) {
        switch category {
        case .analytics: self = .analytics
        case .api: self = .api
        case .auth: self = .auth
        case .dataStore: self = .dataStore
        case .geo: self = .geo
        case .hub: self = .hub
        case .logging: self = .logging
        case .predictions: self = .predictions
        case .pushNotifications: self = .pushNotifications
        case .storage: self = .storage
        }
    }

    /// How many built-in channels there are: the size of the Hub's table of them.
    static let builtInCount = amplifyChannels.count

    /// A stable position for built-in channels (their index in ``amplifyChannels``), `nil` for
    /// custom ones: the Hub keeps built-in channels' listeners in an array so the hot path does
    /// no hashing.
    package var builtInIndex: Int? {
        switch self {
        case .analytics: 0
        case .api: 1
        case .auth: 2
        case .dataStore: 3
        case .geo: 4
        case .hub: 5
        case .logging: 6
        case .predictions: 7
        case .pushNotifications: 8
        case .storage: 9
        case .custom: nil
        }
    }

    /// The channel's name: the category name, or the custom string.
    public var name: String {
        switch self {
        case .custom(let name): name
        default: String(describing: self)
        }
    }

    /// The channel called `name` (a built-in one if the name matches, otherwise a custom one).
    public init(name: String) {
        self = Self.amplifyChannels.first { $0.name == name } ?? .custom(name)
    }
}
