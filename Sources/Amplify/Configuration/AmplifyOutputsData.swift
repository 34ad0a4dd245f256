import Foundation

/// A Gen 2 `amplify_outputs.json`, decoded: every section and field of schema versions 1 to 1.5
/// (amplify-backend's `client-config-schema`), with amplify-swift's type and property names.
///
/// Configure from it with `Amplify.configure(_:)`, or build one in code. Optional fields are
/// `nil` when the file leaves them out. Every section has a public initializer, so a server may
/// assemble its configuration in code. It decodes from the file's snake_case keys with a plain
/// `JSONDecoder`, and equally with `keyDecodingStrategy = .convertFromSnakeCase` (amplify-swift's
/// way); note that this strategy renames the keys inside dictionaries too (storage `paths`, auth
/// `groups`, `custom`), which the plain decoder keeps as written.
public struct AmplifyOutputsData: Codable, Sendable, Equatable {
    /// The schema version ("1" to "1.5").
    public let version: String
    /// Analytics (`analytics.amazon_pinpoint`; Pinpoint is retired, so it configures nothing).
    public let analytics: Analytics?
    /// The Cognito user pool and identity pool.
    public let auth: Auth?
    /// The AppSync GraphQL API.
    public let data: DataCategory?
    /// Amazon Location Service resources (not used by this package).
    public let geo: Geo?
    /// Notification channels (not used by this package).
    public let notifications: Notifications?
    /// The S3 buckets.
    public let storage: Storage?
    /// The backend's own outputs, as they are.
    public let custom: CustomOutput?

    /// A configuration built in code.
    public init(
        version: String = "1.5", analytics: Analytics? = nil, auth: Auth? = nil, data: DataCategory? = nil, geo: Geo? = nil,
        notifications: Notifications? = nil, storage: Storage? = nil, custom: CustomOutput? = nil
    ) {
        self.version = version
        self.analytics = analytics
        self.auth = auth
        self.data = data
        self.geo = geo
        self.notifications = notifications
        self.storage = storage
        self.custom = custom
    }

    /// Decodes the contents of an `amplify_outputs.json`, checked as `Amplify.configure(with:)`
    /// checks it.
    /// - Throws: ``ConfigurationError/unableToDecode(_:_:_:)`` (as amplify-swift) for data that is
    ///   not JSON, or naming the missing or mistyped key.
    public init(data: Data) throws {
        _ = try ConfigurationDocument.configuration(from: [UInt8](data), file: nil, requireGen2: true)
        do {
            self = try JSONDecoder().decode(AmplifyOutputsData.self, from: data)
        } catch let error as DecodingError {
            throw ConfigurationError.unableToDecode(
                "The amplify_outputs data does not decode: \(Self.describe(error)).",
                "Regenerate the file with `npx ampx generate outputs`.", error)
        }
    }

    /// The JSON the configuration stands for (snake_case keys, as the file has them).
    /// - Throws: `EncodingError` (only for a number that is not finite).
    public func encodedJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        switch error {
        case .keyNotFound(let key, let context): return "`\(path(context.codingPath + [key]))` is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "`\(path(context.codingPath))`: \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    enum CodingKeys: String, CodingKey {
        case version, analytics, auth, data, geo, notifications, storage, custom
    }

    /// A region name such as `us-east-1`.
    public typealias AWSRegion = String

    /// `analytics`.
    public struct Analytics: Codable, Sendable, Equatable {
        /// `amazon_pinpoint`.
        public let amazonPinpoint: AmazonPinpoint?

        /// `analytics.amazon_pinpoint`.
        public struct AmazonPinpoint: Codable, Sendable, Equatable {
            /// `aws_region`.
            public let awsRegion: AWSRegion
            /// `app_id`.
            public let appId: String

            /// An `analytics.amazon_pinpoint` section built in code.
            public init(awsRegion: AWSRegion, appId: String) {
                self.awsRegion = awsRegion
                self.appId = appId
            }

            /// Decodes the section by the file's snake_case keys or their camelCase spelling.
            public init(from decoder: any Decoder) throws {
                let fields = try AmplifyOutputsFields(decoder, CodingKeys.self)
                awsRegion = try fields.required(.awsRegion)
                appId = try fields.required(.appId)
            }

            enum CodingKeys: String, CodingKey {
                case awsRegion = "aws_region"
                case appId = "app_id"
            }
        }

        /// An `analytics` section built in code.
        public init(amazonPinpoint: AmazonPinpoint? = nil) {
            self.amazonPinpoint = amazonPinpoint
        }

        /// Decodes the section by the file's snake_case keys or their camelCase spelling.
        public init(from decoder: any Decoder) throws {
            amazonPinpoint = try AmplifyOutputsFields(decoder, CodingKeys.self).optional(.amazonPinpoint)
        }

        enum CodingKeys: String, CodingKey {
            case amazonPinpoint = "amazon_pinpoint"
        }
    }

    /// `auth`.
    public struct Auth: Codable, Sendable, Equatable {
        /// `aws_region`.
        public let awsRegion: AWSRegion
        /// `user_pool_id` (absent for an identity-pool-only backend).
        public let userPoolId: String?
        /// `user_pool_client_id`.
        public let userPoolClientId: String?
        /// `identity_pool_id`.
        public let identityPoolId: String?
        /// `authentication_flow_type` (`USER_SRP_AUTH` when absent).
        public let authenticationFlowType: String?
        /// `password_policy`.
        public let passwordPolicy: PasswordPolicy?
        /// `oauth` (the hosted UI).
        public let oauth: OAuth?
        /// `standard_required_attributes`.
        public let standardRequiredAttributes: [AmazonCognitoStandardAttributes]?
        /// `username_attributes`.
        public let usernameAttributes: [UsernameAttributes]?
        /// `user_verification_types`.
        public let userVerificationTypes: [UserVerificationType]?
        /// `groups` (1.3): each element maps a group's name to its precedence.
        public let groups: [[String: GroupPrecedence]]?
        /// `unauthenticated_identities_enabled`.
        public let unauthenticatedIdentitiesEnabled: Bool?
        /// `mfa_configuration` (`NONE`, `OPTIONAL`, `REQUIRED`).
        public let mfaConfiguration: String?
        /// `mfa_methods` (`SMS`, `TOTP`, and from 1.4 `EMAIL`).
        public let mfaMethods: [String]?
        /// `passwordless` (1.4).
        public let passwordless: Passwordless?

        /// An `auth` section built in code.
        public init(
            awsRegion: AWSRegion, userPoolId: String? = nil, userPoolClientId: String? = nil, identityPoolId: String? = nil,
            authenticationFlowType: String? = nil, passwordPolicy: PasswordPolicy? = nil, oauth: OAuth? = nil,
            standardRequiredAttributes: [AmazonCognitoStandardAttributes]? = nil, usernameAttributes: [UsernameAttributes]? = nil,
            userVerificationTypes: [UserVerificationType]? = nil, groups: [[String: GroupPrecedence]]? = nil,
            unauthenticatedIdentitiesEnabled: Bool? = nil, mfaConfiguration: String? = nil, mfaMethods: [String]? = nil,
            passwordless: Passwordless? = nil
        ) {
            self.awsRegion = awsRegion
            self.userPoolId = userPoolId
            self.userPoolClientId = userPoolClientId
            self.identityPoolId = identityPoolId
            self.authenticationFlowType = authenticationFlowType
            self.passwordPolicy = passwordPolicy
            self.oauth = oauth
            self.standardRequiredAttributes = standardRequiredAttributes
            self.usernameAttributes = usernameAttributes
            self.userVerificationTypes = userVerificationTypes
            self.groups = groups
            self.unauthenticatedIdentitiesEnabled = unauthenticatedIdentitiesEnabled
            self.mfaConfiguration = mfaConfiguration
            self.mfaMethods = mfaMethods
            self.passwordless = passwordless
        }

        /// Decodes the section by the file's snake_case keys or their camelCase spelling.
        public init(from decoder: any Decoder) throws {
            let fields = try AmplifyOutputsFields(decoder, CodingKeys.self)
            awsRegion = try fields.required(.awsRegion)
            userPoolId = try fields.optional(.userPoolId)
            userPoolClientId = try fields.optional(.userPoolClientId)
            identityPoolId = try fields.optional(.identityPoolId)
            authenticationFlowType = try fields.optional(.authenticationFlowType)
            passwordPolicy = try fields.optional(.passwordPolicy)
            oauth = try fields.optional(.oauth)
            standardRequiredAttributes = try fields.optional(.standardRequiredAttributes)
            usernameAttributes = try fields.optional(.usernameAttributes)
            userVerificationTypes = try fields.optional(.userVerificationTypes)
            groups = try fields.optional(.groups)
            unauthenticatedIdentitiesEnabled = try fields.optional(.unauthenticatedIdentitiesEnabled)
            mfaConfiguration = try fields.optional(.mfaConfiguration)
            mfaMethods = try fields.optional(.mfaMethods)
            passwordless = try fields.optional(.passwordless)
        }

        enum CodingKeys: String, CodingKey {
            case awsRegion = "aws_region"
            case userPoolId = "user_pool_id"
            case userPoolClientId = "user_pool_client_id"
            case identityPoolId = "identity_pool_id"
            case authenticationFlowType = "authentication_flow_type"
            case passwordPolicy = "password_policy"
            case oauth
            case standardRequiredAttributes = "standard_required_attributes"
            case usernameAttributes = "username_attributes"
            case userVerificationTypes = "user_verification_types"
            case groups
            case unauthenticatedIdentitiesEnabled = "unauthenticated_identities_enabled"
            case mfaConfiguration = "mfa_configuration"
            case mfaMethods = "mfa_methods"
            case passwordless
        }

        /// `password_policy`.
        public struct PasswordPolicy: Codable, Sendable, Equatable {
            /// `min_length`.
            public let minLength: UInt?
            /// `require_numbers`.
            public let requireNumbers: Bool?
            /// `require_lowercase`.
            public let requireLowercase: Bool?
            /// `require_uppercase`.
            public let requireUppercase: Bool?
            /// `require_symbols`.
            public let requireSymbols: Bool?

            /// A `password_policy` built in code.
            public init(
                minLength: UInt? = nil, requireNumbers: Bool? = nil, requireLowercase: Bool? = nil, requireUppercase: Bool? = nil,
                requireSymbols: Bool? = nil
            ) {
                self.minLength = minLength
                self.requireNumbers = requireNumbers
                self.requireLowercase = requireLowercase
                self.requireUppercase = requireUppercase
                self.requireSymbols = requireSymbols
            }

            /// Decodes the policy by the file's snake_case keys or their camelCase spelling.
            public init(from decoder: any Decoder) throws {
                let fields = try AmplifyOutputsFields(decoder, CodingKeys.self)
                minLength = try fields.optional(.minLength)
                requireNumbers = try fields.optional(.requireNumbers)
                requireLowercase = try fields.optional(.requireLowercase)
                requireUppercase = try fields.optional(.requireUppercase)
                requireSymbols = try fields.optional(.requireSymbols)
            }

            enum CodingKeys: String, CodingKey {
                case minLength = "min_length"
                case requireNumbers = "require_numbers"
                case requireLowercase = "require_lowercase"
                case requireUppercase = "require_uppercase"
                case requireSymbols = "require_symbols"
            }
        }

        /// `oauth`.
        public struct OAuth: Codable, Sendable, Equatable {
            /// `identity_providers`.
            public let identityProviders: [String]
            /// `domain`.
            public let domain: String
            /// `scopes`.
            public let scopes: [String]
            /// `redirect_sign_in_uri`.
            public let redirectSignInUri: [String]
            /// `redirect_sign_out_uri`.
            public let redirectSignOutUri: [String]
            /// `response_type` (`code` or `token`).
            public let responseType: String

            /// An `oauth` section built in code.
            public init(
                identityProviders: [String] = [], domain: String, scopes: [String], redirectSignInUri: [String],
                redirectSignOutUri: [String], responseType: String = "code"
            ) {
                self.identityProviders = identityProviders
                self.domain = domain
                self.scopes = scopes
                self.redirectSignInUri = redirectSignInUri
                self.redirectSignOutUri = redirectSignOutUri
                self.responseType = responseType
            }

            /// Decodes the section by the file's snake_case keys or their camelCase spelling.
            public init(from decoder: any Decoder) throws {
                let fields = try AmplifyOutputsFields(decoder, CodingKeys.self)
                identityProviders = try fields.required(.identityProviders)
                domain = try fields.required(.domain)
                scopes = try fields.required(.scopes)
                redirectSignInUri = try fields.required(.redirectSignInUri)
                redirectSignOutUri = try fields.required(.redirectSignOutUri)
                responseType = try fields.required(.responseType)
            }

            enum CodingKeys: String, CodingKey {
                case identityProviders = "identity_providers"
                case domain, scopes
                case redirectSignInUri = "redirect_sign_in_uri"
                case redirectSignOutUri = "redirect_sign_out_uri"
                case responseType = "response_type"
            }
        }

        /// `groups[].<name>`.
        public struct GroupPrecedence: Codable, Sendable, Equatable {
            /// `precedence`.
            public let precedence: Int?

            /// A group's precedence built in code.
            public init(precedence: Int? = nil) {
                self.precedence = precedence
            }
        }

        /// `passwordless` (1.4).
        public struct Passwordless: Codable, Sendable, Equatable {
            /// `email_otp_enabled`.
            public let emailOtpEnabled: Bool?
            /// `sms_otp_enabled`.
            public let smsOtpEnabled: Bool?
            /// `web_authn`.
            public let webAuthn: WebAuthn?
            /// `preferred_challenge`.
            public let preferredChallenge: String?

            /// `passwordless.web_authn`.
            public struct WebAuthn: Codable, Sendable, Equatable {
                /// `relying_party_id`.
                public let relyingPartyId: String?
                /// `user_verification`.
                public let userVerification: String?

                /// A `web_authn` section built in code.
                public init(relyingPartyId: String? = nil, userVerification: String? = nil) {
                    self.relyingPartyId = relyingPartyId
                    self.userVerification = userVerification
                }

                /// Decodes the section by the file's snake_case keys or their camelCase spelling.
                public init(from decoder: any Decoder) throws {
                    let fields = try AmplifyOutputsFields(decoder, CodingKeys.self)
                    relyingPartyId = try fields.optional(.relyingPartyId)
                    userVerification = try fields.optional(.userVerification)
                }

                enum CodingKeys: String, CodingKey {
                    case relyingPartyId = "relying_party_id"
                    case userVerification = "user_verification"
                }
            }

            /// A `passwordless` section built in code.
            public init(emailOtpEnabled: Bool? = nil, smsOtpEnabled: Bool? = nil, webAuthn: WebAuthn? = nil, preferredChallenge: String? = nil) {
                self.emailOtpEnabled = emailOtpEnabled
                self.smsOtpEnabled = smsOtpEnabled
                self.webAuthn = webAuthn
                self.preferredChallenge = preferredChallenge
            }

            /// Decodes the section by the file's snake_case keys or their camelCase spelling.
            public init(from decoder: any Decoder) throws {
                let fields = try AmplifyOutputsFields(decoder, CodingKeys.self)
                emailOtpEnabled = try fields.optional(.emailOtpEnabled)
                smsOtpEnabled = try fields.optional(.smsOtpEnabled)
                webAuthn = try fields.optional(.webAuthn)
                preferredChallenge = try fields.optional(.preferredChallenge)
            }

            enum CodingKeys: String, CodingKey {
                case emailOtpEnabled = "email_otp_enabled"
                case smsOtpEnabled = "sms_otp_enabled"
                case webAuthn = "web_authn"
                case preferredChallenge = "preferred_challenge"
            }
        }

        /// A username attribute.
        public enum UsernameAttributes: String, Codable, Sendable, Equatable {
            /// `email`.
            case email
            /// `phone_number`.
            case phoneNumber = "phone_number"
        }

        /// An attribute verified at sign-up.
        public enum UserVerificationType: String, Codable, Sendable, Equatable {
            /// `email`.
            case email
            /// `phone_number`.
            case phoneNumber = "phone_number"
        }
    }

    /// `data`: the AppSync API.
    public struct DataCategory: Codable, Sendable, Equatable {
        /// `aws_region`.
        public let awsRegion: AWSRegion
        /// `url`.
        public let url: String
        /// `model_introspection`.
        public let modelIntrospection: JSONValue?
        /// `api_key`.
        public let apiKey: String?
        /// `default_authorization_type`.
        public let defaultAuthorizationType: AWSAppSyncAuthorizationType
        /// `authorization_types`.
        public let authorizationTypes: [AWSAppSyncAuthorizationType]
        /// `conflict_resolution_mode`.
        public let conflictResolutionMode: String?

        /// A `data` section built in code.
        public init(
            awsRegion: AWSRegion, url: String, modelIntrospection: JSONValue? = nil, apiKey: String? = nil,
            defaultAuthorizationType: AWSAppSyncAuthorizationType, authorizationTypes: [AWSAppSyncAuthorizationType] = [],
            conflictResolutionMode: String? = nil
        ) {
            self.awsRegion = awsRegion
            self.url = url
            self.modelIntrospection = modelIntrospection
            self.apiKey = apiKey
            self.defaultAuthorizationType = defaultAuthorizationType
            self.authorizationTypes = authorizationTypes
            self.conflictResolutionMode = conflictResolutionMode
        }

        /// Decodes the section by the file's snake_case keys or their camelCase spelling.
        public init(from decoder: any Decoder) throws {
            let fields = try AmplifyOutputsFields(decoder, CodingKeys.self)
            awsRegion = try fields.required(.awsRegion)
            url = try fields.required(.url)
            modelIntrospection = try fields.optional(.modelIntrospection)
            apiKey = try fields.optional(.apiKey)
            defaultAuthorizationType = try fields.required(.defaultAuthorizationType)
            authorizationTypes = try fields.required(.authorizationTypes)
            conflictResolutionMode = try fields.optional(.conflictResolutionMode)
        }

        enum CodingKeys: String, CodingKey {
            case awsRegion = "aws_region"
            case url
            case modelIntrospection = "model_introspection"
            case apiKey = "api_key"
            case defaultAuthorizationType = "default_authorization_type"
            case authorizationTypes = "authorization_types"
            case conflictResolutionMode = "conflict_resolution_mode"
        }
    }

    /// `geo`.
    public struct Geo: Codable, Sendable, Equatable {
        /// `aws_region`.
        public let awsRegion: AWSRegion
        /// `maps`.
        public let maps: Maps?
        /// `search_indices`.
        public let searchIndices: SearchIndices?
        /// `geofence_collections`.
        public let geofenceCollections: GeofenceCollections?

        /// A `geo` section built in code.
        public init(awsRegion: AWSRegion, maps: Maps? = nil, searchIndices: SearchIndices? = nil, geofenceCollections: GeofenceCollections? = nil) {
            self.awsRegion = awsRegion
            self.maps = maps
            self.searchIndices = searchIndices
            self.geofenceCollections = geofenceCollections
        }

        /// Decodes the section by the file's snake_case keys or their camelCase spelling.
        public init(from decoder: any Decoder) throws {
            let fields = try AmplifyOutputsFields(decoder, CodingKeys.self)
            awsRegion = try fields.required(.awsRegion)
            maps = try fields.optional(.maps)
            searchIndices = try fields.optional(.searchIndices)
            geofenceCollections = try fields.optional(.geofenceCollections)
        }

        enum CodingKeys: String, CodingKey {
            case awsRegion = "aws_region"
            case maps
            case searchIndices = "search_indices"
            case geofenceCollections = "geofence_collections"
        }

        /// `geo.maps`.
        public struct Maps: Codable, Sendable, Equatable {
            /// `items`: each map's style.
            public let items: [String: AmazonLocationServiceConfig]
            /// `default`.
            public let `default`: String

            /// A `maps` section built in code.
            public init(items: [String: AmazonLocationServiceConfig], default: String) {
                self.items = items
                self.default = `default`
            }

            /// A map.
            public struct AmazonLocationServiceConfig: Codable, Sendable, Equatable {
                /// `style`.
                public let style: String?

                /// A map built in code.
                public init(style: String? = nil) {
                    self.style = style
                }
            }
        }

        /// `geo.search_indices`.
        public struct SearchIndices: Codable, Sendable, Equatable {
            /// `items`.
            public let items: [String]
            /// `default`.
            public let `default`: String

            /// A `search_indices` section built in code.
            public init(items: [String], default: String) {
                self.items = items
                self.default = `default`
            }
        }

        /// `geo.geofence_collections`.
        public struct GeofenceCollections: Codable, Sendable, Equatable {
            /// `items`.
            public let items: [String]
            /// `default`.
            public let `default`: String

            /// A `geofence_collections` section built in code.
            public init(items: [String], default: String) {
                self.items = items
                self.default = `default`
            }
        }
    }

    /// `notifications`.
    public struct Notifications: Codable, Sendable, Equatable {
        /// `aws_region`.
        public let awsRegion: String?
        /// `amazon_pinpoint_app_id`.
        public let amazonPinpointAppId: String?
        /// `channels`.
        public let channels: [AmazonPinpointChannelType]?
        /// `amazon_connect` (1.5).
        public let amazonConnect: AmazonConnect?

        /// `notifications.amazon_connect` (1.5).
        public struct AmazonConnect: Codable, Sendable, Equatable {
            /// `aws_region`.
            public let awsRegion: String?
            /// `endpoint`.
            public let endpoint: String?

            /// An `amazon_connect` section built in code.
            public init(awsRegion: String? = nil, endpoint: String? = nil) {
                self.awsRegion = awsRegion
                self.endpoint = endpoint
            }

            /// Decodes the section by the file's snake_case keys or their camelCase spelling.
            public init(from decoder: any Decoder) throws {
                let fields = try AmplifyOutputsFields(decoder, CodingKeys.self)
                awsRegion = try fields.optional(.awsRegion)
                endpoint = try fields.optional(.endpoint)
            }

            enum CodingKeys: String, CodingKey {
                case awsRegion = "aws_region"
                case endpoint
            }
        }

        /// A `notifications` section built in code.
        public init(
            awsRegion: String? = nil, amazonPinpointAppId: String? = nil, channels: [AmazonPinpointChannelType]? = nil,
            amazonConnect: AmazonConnect? = nil
        ) {
            self.awsRegion = awsRegion
            self.amazonPinpointAppId = amazonPinpointAppId
            self.channels = channels
            self.amazonConnect = amazonConnect
        }

        /// Decodes the section by the file's snake_case keys or their camelCase spelling.
        public init(from decoder: any Decoder) throws {
            let fields = try AmplifyOutputsFields(decoder, CodingKeys.self)
            awsRegion = try fields.optional(.awsRegion)
            amazonPinpointAppId = try fields.optional(.amazonPinpointAppId)
            channels = try fields.optional(.channels)
            amazonConnect = try fields.optional(.amazonConnect)
        }

        enum CodingKeys: String, CodingKey {
            case awsRegion = "aws_region"
            case amazonPinpointAppId = "amazon_pinpoint_app_id"
            case channels
            case amazonConnect = "amazon_connect"
        }
    }

    /// `storage`.
    public struct Storage: Codable, Sendable, Equatable {
        /// `aws_region` of the default bucket.
        public let awsRegion: AWSRegion
        /// `bucket_name` of the default bucket.
        public let bucketName: String
        /// `buckets` (1.1): every bucket, by its name in the backend.
        public let buckets: [Bucket]?

        /// A `storage` section built in code.
        public init(awsRegion: AWSRegion, bucketName: String, buckets: [Bucket]? = nil) {
            self.awsRegion = awsRegion
            self.bucketName = bucketName
            self.buckets = buckets
        }

        /// Decodes the section by the file's snake_case keys or their camelCase spelling.
        public init(from decoder: any Decoder) throws {
            let fields = try AmplifyOutputsFields(decoder, CodingKeys.self)
            awsRegion = try fields.required(.awsRegion)
            bucketName = try fields.required(.bucketName)
            buckets = try fields.optional(.buckets)
        }

        enum CodingKeys: String, CodingKey {
            case awsRegion = "aws_region"
            case bucketName = "bucket_name"
            case buckets
        }

        /// `storage.buckets[]`.
        public struct Bucket: Codable, Sendable, Equatable {
            /// `name`: the bucket's name in the backend (what `StorageBucket.fromOutputs(name:)` takes).
            public let name: String
            /// `bucket_name`: the S3 bucket.
            public let bucketName: String
            /// `aws_region`.
            public let awsRegion: AWSRegion
            /// `paths` (1.2): for each path prefix (`"photos/*"`), each rule's permissions
            /// (`"guest": ["get", "list"]`, `"groupAdmin": [...]`, `"entityidentity": [...]`).
            public let paths: [String: [String: [String]]]?

            /// A bucket built in code.
            public init(name: String, bucketName: String, awsRegion: AWSRegion, paths: [String: [String: [String]]]? = nil) {
                self.name = name
                self.bucketName = bucketName
                self.awsRegion = awsRegion
                self.paths = paths
            }

            /// Decodes the bucket by the file's snake_case keys or their camelCase spelling.
            public init(from decoder: any Decoder) throws {
                let fields = try AmplifyOutputsFields(decoder, CodingKeys.self)
                name = try fields.required(.name)
                bucketName = try fields.required(.bucketName)
                awsRegion = try fields.required(.awsRegion)
                paths = try fields.optional(.paths)
            }

            enum CodingKeys: String, CodingKey {
                case name
                case bucketName = "bucket_name"
                case awsRegion = "aws_region"
                case paths
            }
        }
    }

    /// `custom`: anything, kept as it is.
    public typealias CustomOutput = JSONValue

    /// A Cognito standard attribute (snake_case in the file).
    public enum AmazonCognitoStandardAttributes: String, Codable, Sendable, Equatable {
        /// A standard attribute.
        case address, birthdate, email
        case familyName = "family_name"
        case gender
        case givenName = "given_name"
        case locale
        /// A standard attribute.
        case middleName = "middle_name"
        case name, nickname
        case phoneNumber = "phone_number"
        case picture
        /// A standard attribute.
        case preferredUsername = "preferred_username"
        case profile, sub
        case updatedAt = "updated_at"
        case website, zoneinfo
    }

    /// An AppSync authorization type.
    public enum AWSAppSyncAuthorizationType: String, Codable, Sendable, Equatable {
        /// `AMAZON_COGNITO_USER_POOLS`.
        case amazonCognitoUserPools = "AMAZON_COGNITO_USER_POOLS"
        /// `API_KEY`.
        case apiKey = "API_KEY"
        /// `AWS_IAM`.
        case awsIAM = "AWS_IAM"
        /// `AWS_LAMBDA`.
        case awsLambda = "AWS_LAMBDA"
        /// `OPENID_CONNECT`.
        case openIDConnect = "OPENID_CONNECT"
    }

    /// A Pinpoint notification channel.
    public enum AmazonPinpointChannelType: String, Codable, Sendable, Equatable {
        /// `IN_APP_MESSAGING`.
        case inAppMessaging = "IN_APP_MESSAGING"
        /// `FCM`.
        case fcm = "FCM"
        /// `APNS`.
        case apns = "APNS"
        /// `EMAIL`.
        case email = "EMAIL"
        /// `SMS`.
        case sms = "SMS"
    }
}
