/// What `identifyUser` records about a user.
public struct AnalyticsUserProfile: Sendable {
    /// Where the user is.
    public struct Location: Sendable {
        /// Degrees north.
        public var latitude: Double?
        /// Degrees east.
        public var longitude: Double?
        /// Postal code.
        public var postalCode: String?
        /// City.
        public var city: String?
        /// Region or state.
        public var region: String?
        /// Country.
        public var country: String?

        /// A location.
        public init(
            latitude: Double? = nil, longitude: Double? = nil, postalCode: String? = nil, city: String? = nil,
            region: String? = nil, country: String? = nil
        ) {
            self.latitude = latitude
            self.longitude = longitude
            self.postalCode = postalCode
            self.city = city
            self.region = region
            self.country = country
        }
    }

    /// The user's name.
    public var name: String?
    /// The user's email address.
    public var email: String?
    /// The user's plan or tier.
    public var plan: String?
    /// Where the user is.
    public var location: Location?
    /// Anything else about the user.
    public var properties: AnalyticsProperties?

    /// A profile.
    public init(
        name: String? = nil, email: String? = nil, plan: String? = nil, location: Location? = nil,
        properties: AnalyticsProperties? = nil
    ) {
        self.name = name
        self.email = email
        self.plan = plan
        self.location = location
        self.properties = properties
    }
}
