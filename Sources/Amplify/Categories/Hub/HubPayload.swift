/// What travels on the Hub: an event name, and optionally a context and data.
///
/// Differs from amplify-swift in one way Swift 6 requires: `context` and `data` are
/// `(any Sendable)?` instead of `Any?`, because listeners run on the loop thread.
public struct HubPayload: Sendable {
    /// The event's name, such as `HubPayload.EventName.Auth.signedIn`.
    public let eventName: String
    /// Anything the dispatcher wants to pass along (often the request or operation).
    public let context: (any Sendable)?
    /// The event's data (often a result, or an error).
    public let data: (any Sendable)?

    /// A payload.
    public init(eventName: String, context: (any Sendable)? = nil, data: (any Sendable)? = nil) {
        self.eventName = eventName
        self.context = context
        self.data = data
    }

    /// Namespaces of event names, one per category (`HubPayload.EventName.Auth.signedIn`).
    public enum EventName {
        /// Core events.
        public enum Amplify {
            /// Sent to every built-in channel once `Amplify.configure` has succeeded.
            public static let configured = "Amplify.configured"
            /// Something in the configuration was read but not applied (data: the
            /// ``ConfigurationFinding``), on the `.logging` channel during `configure`.
            public static let configurationWarning = "Amplify.configurationWarning"
        }

        /// Auth events: lifecycle (`signedIn`, `signedOut`, `sessionExpired`, `userDeleted`) and
        /// one `…API` event per call carrying its result or error.
        public enum Auth {
            /// A user signed in.
            public static let signedIn = "Auth.signedIn"
            /// The user signed out.
            public static let signedOut = "Auth.signedOut"
            /// The session ended on its own: the refresh token expired or was revoked.
            public static let sessionExpired = "Auth.sessionExpired"
            /// The signed-in user was deleted.
            public static let userDeleted = "Auth.userDeleted"
            /// A session's tokens were refreshed (data: `AuthUserEvent` naming the user and the session's scope).
            public static let tokenRefreshed = "Auth.tokenRefreshed"
            /// A session's refresh failed (data: `AuthUserEvent` naming the user, with the error); a refused
            /// refresh token is followed by `sessionExpired` for that user.
            public static let tokenRefreshFailed = "Auth.tokenRefreshFailed"
            /// Result of `signUp`.
            public static let signUpAPI = "Auth.signUpAPI"
            /// Result of `confirmSignUp`.
            public static let confirmSignUpAPI = "Auth.confirmSignUpAPI"
            /// Result of `resendSignUpCode`.
            public static let resendSignUpCodeAPI = "Auth.resendSignUpCodeAPI"
            /// Result of `signIn`.
            public static let signInAPI = "Auth.signInAPI"
            /// The result of `signInWithWebUI` (the hosted UI).
            public static let webUISignInAPI = "Auth.webUISignInAPI"
            /// Result of `confirmSignIn`.
            public static let confirmSignInAPI = "Auth.confirmSignInAPI"
            /// Result of `signOut`.
            public static let signOutAPI = "Auth.signOutAPI"
            /// Result of `deleteUser`.
            public static let deleteUserAPI = "Auth.deleteUserAPI"
            /// Result of `fetchAuthSession`.
            public static let fetchSessionAPI = "Auth.fetchSessionAPI"
            /// Result of `resetPassword`.
            public static let resetPasswordAPI = "Auth.resetPasswordAPI"
            /// Result of `confirmResetPassword`.
            public static let confirmResetPasswordAPI = "Auth.confirmResetPasswordAPI"
            /// Result of `update(oldPassword:to:)`.
            public static let changePasswordAPI = "Auth.changePasswordAPI"
            /// Result of `fetchUserAttributes`.
            public static let fetchUserAttributesAPI = "Auth.fetchUserAttributesAPI"
            /// Result of `update(userAttribute:)`.
            public static let updateUserAttributeAPI = "Auth.updateUserAttributeAPI"
            /// Result of `update(userAttributes:)`.
            public static let updateUserAttributesAPI = "Auth.updateUserAttributesAPI"
        }

        /// Storage events, one per call.
        public enum Storage {
            /// Result of `uploadData`.
            public static let uploadData = "Storage.uploadData"
            /// Result of `uploadFile`.
            public static let uploadFile = "Storage.uploadFile"
            /// Result of `downloadData`.
            public static let downloadData = "Storage.downloadData"
            /// Result of `downloadFile`.
            public static let downloadFile = "Storage.downloadFile"
            /// Result of `getURL`.
            public static let getURL = "Storage.getURL"
            /// Result of `remove`.
            public static let remove = "Storage.remove"
            /// Result of `list`.
            public static let list = "Storage.list"
            /// Progress of a transfer (context: the call's event name, data: a `StorageTransferProgress`).
            public static let progress = "Storage.progress"
        }

        /// API events: one per call carrying its result or error (context: an
        /// ``APIOperationContext`` naming the API), and `subscribe` for every connection state of
        /// a subscription and its end.
        public enum API {
            /// Outcome of `query` (data: the ``GraphQLResponse`` or the ``APIError``).
            public static let query = "API.query"
            /// Outcome of `mutate` (data: the ``GraphQLResponse`` or the ``APIError``).
            public static let mutate = "API.mutate"
            /// A subscription's connection state changed (data: the ``SubscriptionConnectionState``)
            /// or it ended with an error (data: the ``APIError``).
            public static let subscribe = "API.subscribe"
            /// Outcome of `get` (data: the body's size in bytes, or the ``APIError``).
            public static let get = "API.get"
            /// Outcome of `put`.
            public static let put = "API.put"
            /// Outcome of `post`.
            public static let post = "API.post"
            /// Outcome of `patch`.
            public static let patch = "API.patch"
            /// Outcome of `delete`.
            public static let delete = "API.delete"
            /// Outcome of `head`.
            public static let head = "API.head"
        }

        /// Analytics events.
        public enum Analytics {
            /// Outcome of `identifyUser`.
            public static let identifyUser = "Analytics.identifyUser"
            /// Outcome of `record`.
            public static let record = "Analytics.record"
            /// Outcome of `flushEvents`.
            public static let flushEvents = "Analytics.flushEvents"
        }
    }
}
