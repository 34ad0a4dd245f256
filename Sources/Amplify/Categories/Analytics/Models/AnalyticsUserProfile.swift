/// What `identifyUser` records about a user.
public struct AnalyticsUserProfile: Sendable {
    /// Where the user is.
    public struct Location: Sendable {
        public var latitude: Double?
        public var longitude: Double?
        public var postalCode: String?
        public var city: String?
        public var region: String?
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

    public var name: String?
    public var email: String?
    public var plan: String?
    public var location: Location?
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
