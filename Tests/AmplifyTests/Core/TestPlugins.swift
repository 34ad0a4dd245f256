import Amplify
import AmplifyConcurrency
import AmplifyTestKit
import Foundation

/// What the test plugins saw while being configured.
struct ConfigureRecord: Sendable {
    let key: String
    let block: JSONValue?
    let hubThreshold: Duration?
    let logLevel: Amplify.LogLevel
}

/// Shared between the test plugins of one test (tests using them run serialized).
let configureRecords = Locked<[ConfigureRecord]>([])

/// Records how it was configured; optionally requires `CognitoUserPool.Default.PoolId`.
final class TestAuthPlugin: AuthCategoryPlugin {
    let key: PluginKey
    let requiresPoolId: Bool
    /// A key whose string value is refused as being of the wrong form.
    let refusedKey: String?
    /// What `configurationWarnings` says after `configure`.
    let warnings: [ConfigurationWarning]

    init(key: PluginKey = "testAuthPlugin", requiresPoolId: Bool = false, refusedKey: String? = nil, warnings: [ConfigurationWarning] = []) {
        self.key = key
        self.requiresPoolId = requiresPoolId
        self.refusedKey = refusedKey
        self.warnings = warnings
    }

    func configure(using configuration: Any?) throws {
        let block = configuration as? JSONValue
        if requiresPoolId { _ = try (block ?? [:]).requiredString("CognitoUserPool.Default.PoolId") }
        if let refusedKey, let value = block?[refusedKey] {
            throw ConfigurationValueError(keyPath: refusedKey, expected: "a value of another form", found: value)
        }
        recordConfiguration(key: key, block: block)
    }

    func reset() async {}

    private func unsupported() -> AuthError {
        AuthError.invalidState("TestAuthPlugin does not implement this call.", "Use a real plugin.")
    }

    func signUp(username: String, password: String?, options: AuthSignUpRequest.Options?) async throws -> AuthSignUpResult {
        AuthSignUpResult(
            .confirmUser(AuthCodeDeliveryDetails(destination: .email("t***@example.com")), nil, "id-\(username)"), userID: "id-\(username)")
    }
    func confirmSignUp(for username: String, confirmationCode: String, options: AuthConfirmSignUpRequest.Options?) async throws -> AuthSignUpResult {
        throw unsupported()
    }
    func resendSignUpCode(for username: String, options: AuthResendSignUpCodeRequest.Options?) async throws -> AuthCodeDeliveryDetails {
        throw unsupported()
    }
    func signIn(username: String?, password: String?, options: AuthSignInRequest.Options?) async throws -> AuthSignInResult {
        AuthSignInResult(nextStep: .done)
    }
    func confirmSignIn(challengeResponse: String, options: AuthConfirmSignInRequest.Options?) async throws -> AuthSignInResult { throw unsupported() }
    func signOut(options: AuthSignOutRequest.Options?) async -> any AuthSignOutResult { TestSignOutResult() }
    func deleteUser() async throws { throw unsupported() }
    func fetchAuthSession(options: AuthFetchSessionRequest.Options?) async throws -> any AuthSession { throw unsupported() }
    func resetPassword(for username: String, options: AuthResetPasswordRequest.Options?) async throws -> AuthResetPasswordResult {
        throw unsupported()
    }
    func confirmResetPassword(
        for username: String, with newPassword: String, confirmationCode: String, options: AuthConfirmResetPasswordRequest.Options?
    ) async throws { throw unsupported() }
    func getCurrentUser() async throws -> any AuthUser { throw unsupported() }
    func fetchUserAttributes(options: AuthFetchUserAttributesRequest.Options?) async throws -> [AuthUserAttribute] { throw unsupported() }
    func update(userAttribute: AuthUserAttribute, options: AuthUpdateUserAttributeRequest.Options?) async throws -> AuthUpdateAttributeResult {
        throw unsupported()
    }
    func update(userAttributes: [AuthUserAttribute], options: AuthUpdateUserAttributesRequest.Options?) async throws -> [AuthUserAttributeKey:
        AuthUpdateAttributeResult]
    { throw unsupported() }
    func update(oldPassword: String, to newPassword: String, options: AuthChangePasswordRequest.Options?) async throws { throw unsupported() }
}

struct TestSignOutResult: AuthSignOutResult {
    var signedOutLocally: Bool { true }
}

/// Records events; configured from its block.
final class TestAnalyticsPlugin: AnalyticsCategoryPlugin {
    let key: PluginKey = "testAnalyticsPlugin"
    let recorded = Locked<[String]>([])

    func configure(using configuration: Any?) throws { recordConfiguration(key: key, block: configuration as? JSONValue) }
    func reset() async {}
    func identifyUser(userId: String, userProfile: AnalyticsUserProfile?) { recorded.withLock { $0.append("identify:\(userId)") } }
    func record(event: any AnalyticsEvent) { recorded.withLock { $0.append(event.name) } }
    func record(eventWithName eventName: String) { recorded.withLock { $0.append(eventName) } }
    func registerGlobalProperties(_ properties: AnalyticsProperties) {}
    func unregisterGlobalProperties(_ keys: Set<String>?) {
        recorded.withLock { $0.append("unregister:" + (keys.map { $0.sorted().joined(separator: ",") } ?? "all")) }
    }
    func flushEvents() { recorded.withLock { $0.append("flush") } }
    func enable() {}
    func disable() {}
}

/// Configured from its block; every transfer succeeds with the path.
final class TestStoragePlugin: StorageCategoryPlugin {
    let key: PluginKey = "testStoragePlugin"

    func configure(using configuration: Any?) throws { recordConfiguration(key: key, block: configuration as? JSONValue) }
    func reset() async {}

    private func finished<T>(_ value: T) -> StorageTransferTask<T> {
        let (task, controller) = StorageTransferTask<T>.make()
        controller.succeed(value)
        return task
    }

    func uploadData(path: any StoragePath, data: Data, options: StorageUploadDataRequest.Options?) -> StorageUploadDataTask { finished("uploaded") }
    func uploadFile(path: any StoragePath, local: URL, options: StorageUploadFileRequest.Options?) -> StorageUploadFileTask { finished("uploaded") }
    func downloadData(path: any StoragePath, options: StorageDownloadDataRequest.Options?) -> StorageDownloadDataTask { finished(Data()) }
    func downloadFile(path: any StoragePath, local: URL, options: StorageDownloadFileRequest.Options?) -> StorageDownloadFileTask { finished(()) }
    func getURL(path: any StoragePath, options: StorageGetURLRequest.Options?) async throws -> URL { URL(fileURLWithPath: "/") }
    func remove(path: any StoragePath, options: StorageRemoveRequest.Options?) async throws -> String { "removed" }
    func list(path: any StoragePath, options: StorageListRequest.Options?) async throws -> StorageListResult { StorageListResult(items: []) }
}

/// A plugin of no category Amplify knows.
final class CategorylessPlugin: Plugin {
    let key: PluginKey = "categoryless"
    let categoryType: CategoryType = .geo
    func configure(using configuration: Any?) throws {}
    func reset() async {}
}

private func recordConfiguration(key: String, block: JSONValue?) {
    let record = ConfigureRecord(
        key: key, block: block,
        hubThreshold: (Amplify.Hub.plugin as? DefaultHubPlugin)?.slowListenerThreshold,
        logLevel: Amplify.Logging.logLevel)
    configureRecords.withLock { $0.append(record) }
}

/// Records how it was configured; answers every query with the API names of its block; fails
/// with the key path `<first api>.endpoint` when that API has no endpoint.
final class TestAPIPlugin: APICategoryPlugin {
    let key: PluginKey = "testAPIPlugin"
    let resets = Locked(0)
    private let names = Locked<[String]>([])

    func configure(using configuration: Any?) throws {
        let block = configuration as? JSONValue
        let apis = block?.asObject ?? [:]
        for name in apis.keys.sorted() where apis[name]?["endpoint"] == nil {
            throw ConfigurationValueError(keyPath: "\(name).endpoint", expected: "an http or https URL", found: nil)
        }
        names.withLock { $0 = apis.keys.sorted() }
        recordConfiguration(key: key, block: block)
    }

    func reset() async { resets.withLock { $0 += 1 } }

    func query<R: Decodable & Sendable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R> {
        guard let value = JSONValue.array(names.value.map(JSONValue.string)) as? R else { return .failure(.unknown("not JSONValue", "")) }
        return .success(value)
    }
    func mutate<R: Decodable & Sendable>(request: GraphQLRequest<R>) async throws -> GraphQLResponse<R> { try await query(request: request) }
    func subscribe<R: Decodable & Sendable>(request: GraphQLRequest<R>) -> AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>> {
        let sequence = AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>>()
        sequence.send(.connection(.connecting))
        sequence.finish()
        return sequence
    }
    func get(request: RESTRequest) async throws -> Data { Data((request.path ?? "").utf8) }
    func put(request: RESTRequest) async throws -> Data { try await get(request: request) }
    func post(request: RESTRequest) async throws -> Data { try await get(request: request) }
    func delete(request: RESTRequest) async throws -> Data { try await get(request: request) }
    func head(request: RESTRequest) async throws -> Data { Data() }
    func patch(request: RESTRequest) async throws -> Data { try await get(request: request) }
    func add(interceptor: any URLRequestInterceptor, for apiName: String) throws {}
}

extension TestAuthPlugin: ConfigurationWarningsProviding {
    var configurationWarnings: [ConfigurationWarning] { warnings }
}
