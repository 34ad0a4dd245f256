import Amplify
import AmplifyConcurrency
import AmplifyTestKit
import Foundation
import Testing

/// A Hub plugin as amplify-swift's protocol asks for one: only its four calls, no file/line, no
/// streams, no flush. It delivers synchronously to the listeners of the channel.
final class MinimalHubPlugin: HubCategoryPlugin {
    let key: PluginKey
    private let listeners = Locked<[UUID: (HubChannel, HubFilter?, HubListener)]>([:])

    init(key: PluginKey = "minimalHubPlugin") {
        self.key = key
    }

    func configure(using configuration: Any?) throws {}
    func reset() async { listeners.withLock { $0.removeAll() } }

    func dispatch(to channel: HubChannel, payload: HubPayload) {
        for (listenerChannel, filter, listener) in listeners.value.values where listenerChannel == channel && (filter?(payload) ?? true) {
            listener(payload)
        }
    }

    func listen(to channel: HubChannel, eventName: HubPayloadEventName, listener: @escaping HubListener) -> UnsubscribeToken {
        listen(to: channel, isIncluded: { $0.eventName == eventName }, listener: listener)
    }

    func listen(to channel: HubChannel, isIncluded filter: HubFilter?, listener: @escaping HubListener) -> UnsubscribeToken {
        let id = UUID()
        listeners.withLock { $0[id] = (channel, filter, listener) }
        return UnsubscribeToken(channel: channel, id: id)
    }

    func removeListener(_ token: UnsubscribeToken) {
        listeners.withLock { _ = $0.removeValue(forKey: token.id) }
    }
}

/// amplify-swift's public surface of the core: Hub plugins, category errors, resets, names.
extension AmplifyLifecycleTests {
    @Test("a Hub plugin written against amplify-swift's four requirements conforms, and Amplify.Hub uses it")
    func minimalHubPluginConforms() async throws {
        await fresh()
        let hub = MinimalHubPlugin()
        try Amplify.add(plugin: hub)
        let heard = Locked<[String]>([])
        let token = Amplify.Hub.listen(to: .custom("app"), eventName: "hello") { payload in heard.withLock { $0.append(payload.eventName) } }
        Amplify.Hub.dispatch(to: .custom("app"), payload: HubPayload(eventName: "hello"))
        Amplify.Hub.dispatch(to: .custom("app"), payload: HubPayload(eventName: "other"))
        #expect(heard.value == ["hello"])
        // The defaults: a stream over a listener, and a flush that returns.
        let stream = Amplify.Hub.events(on: .custom("app"))
        Amplify.Hub.dispatch(to: .custom("app"), payload: HubPayload(eventName: "streamed"))
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.eventName == "streamed")
        await Amplify.Hub.flush()
        Amplify.Hub.removeListener(token)
        #expect(try Amplify.Hub.getPlugin(for: "minimalHubPlugin") === hub)
        await Amplify.reset()
    }

    @Test(
        "a second Hub plugin is added beside the first, getPlugin(for:) selects each, and a call on Amplify.Hub with two fails with a logged HubError"
    )
    func severalHubPlugins() async throws {
        await fresh()
        let logs = RecordingLoggingPlugin()
        try Amplify.add(plugin: logs)
        let first = MinimalHubPlugin(key: "first")
        let second = MinimalHubPlugin(key: "second")
        try Amplify.add(plugin: first)
        try Amplify.add(plugin: second)
        #expect(try Amplify.Hub.getPlugin(for: "first") === first)
        #expect(try Amplify.Hub.getPlugin(for: "second") === second)
        let heard = Locked(0)
        _ = try Amplify.Hub.getPlugin(for: "second").listen(to: .auth, isIncluded: nil) { _ in heard.withLock { $0 += 1 } }
        try Amplify.Hub.getPlugin(for: "second").dispatch(to: .auth, payload: HubPayload(eventName: "direct"))
        #expect(heard.value == 1)
        // No selection: nothing is dispatched or registered, and the error is logged.
        Amplify.Hub.dispatch(to: .auth, payload: HubPayload(eventName: "ambiguous"))
        _ = Amplify.Hub.listen(to: .auth) { _ in heard.withLock { $0 += 100 } }
        try Amplify.Hub.getPlugin(for: "second").dispatch(to: .auth, payload: HubPayload(eventName: "direct"))
        #expect(heard.value == 2)
        let errors = logs.messages.filter { $0.level == .error && $0.category == "Hub" }
        #expect(errors.count == 2)
        #expect(errors.first?.message.contains("More than 1 plugin added to the Hub category (first, second)") == true)
        let missing = await error(HubError.self) { _ = try Amplify.Hub.getPlugin(for: "third") }
        guard case .configuration(let description, let suggestion, _)? = missing else {
            Issue.record("\(String(describing: missing))")
            return
        }
        #expect(description == "No plugin has been added for 'third'.")
        #expect(suggestion == "Either add a plugin for 'third', or use one of the known keys: first, second.")
        // Amplify.configured reaches every plugin, as amplify-swift sends it.
        let configured = Locked(0)
        _ = first.listen(to: .hub, eventName: HubPayload.EventName.Amplify.configured) { _ in configured.withLock { $0 += 1 } }
        _ = second.listen(to: .hub, eventName: HubPayload.EventName.Amplify.configured) { _ in configured.withLock { $0 += 1 } }
        try Amplify.configure(AmplifyConfiguration())
        #expect(configured.value == 2)
        await Amplify.reset()
    }

    @Test("the default Hub plugin answers to amplify-swift's key awsHubPlugin, in getPlugin(for:) and in a configuration file")
    func defaultHubAnswersToAWSHubPlugin() async throws {
        await fresh()
        #expect(AWSHubPlugin.key == "awsHubPlugin")
        let hub = try #require(try Amplify.Hub.getPlugin(for: AWSHubPlugin.key) as? AWSHubPlugin)
        // amplify-swift's own Hub tests check the plugin's key before using it.
        #expect(hub.key == "awsHubPlugin")
        #expect(try Amplify.Hub.getPlugin(for: "defaultHubPlugin") === hub)
        try Amplify.configure(AmplifyConfiguration(hub: CategoryConfiguration(plugins: ["awsHubPlugin": ["slowListenerThresholdMilliseconds": 20]])))
        #expect(hub.slowListenerThreshold == .milliseconds(20))
        #expect(Amplify.configurationFindings.isEmpty)
        await Amplify.reset()
    }

    @Test("hasListener(withToken:) is true from listen until removeListener returns")
    func hasListenerWithToken() async throws {
        await fresh()
        let hub = try #require(Amplify.Hub.plugin as? DefaultHubPlugin)
        let token = Amplify.Hub.listen(to: .storage) { _ in }
        #expect(hub.hasListener(withToken: token))
        Amplify.Hub.removeListener(token)
        #expect(!hub.hasListener(withToken: token))
        #expect(!hub.hasListener(withToken: UnsubscribeToken(channel: .storage, id: UUID())))
        await Amplify.reset()
    }

    @Test("getPlugin(for:) with an unknown key and add(plugin:) with an empty key throw each category's own error")
    func categoryErrors() async throws {
        await fresh()
        let storage = await error(StorageError.self) { _ = try Amplify.Storage.getPlugin(for: "nope") }
        guard case .configuration? = storage else {
            Issue.record("\(String(describing: storage))")
            return
        }
        let analytics = await error(AnalyticsError.self) { _ = try Amplify.Analytics.getPlugin(for: "nope") }
        guard case .configuration? = analytics else {
            Issue.record("\(String(describing: analytics))")
            return
        }
        let api = await error(APIError.self) { _ = try Amplify.API.getPlugin(for: "nope") }
        guard case .invalidConfiguration? = api else {
            Issue.record("\(String(describing: api))")
            return
        }
        let logging = await error(LoggingError.self) { _ = try Amplify.Logging.getPlugin(for: "nope") }
        guard case .configuration? = logging else {
            Issue.record("\(String(describing: logging))")
            return
        }
        let hub = await error(HubError.self) { try Amplify.add(plugin: MinimalHubPlugin(key: "")) }
        #expect(hub?.errorDescription == "Plugin MinimalHubPlugin has an empty `key`.")
        let loggingKey = await error(LoggingError.self) { try Amplify.add(plugin: EmptyKeyLoggingPlugin()) }
        #expect(loggingKey?.errorDescription == "Plugin EmptyKeyLoggingPlugin has an empty `key`.")
        await Amplify.reset()
    }

    @Test("each category's public reset() resets its plugins and leaves it unconfigured")
    func categoryReset() async throws {
        await fresh()
        let api = TestAPIPlugin()
        try Amplify.add(plugin: api)
        try Amplify.add(plugin: TestAuthPlugin())
        try Amplify.configure(AmplifyConfiguration(api: CategoryConfiguration(plugins: ["testAPIPlugin": [:]])))
        await Amplify.API.reset()
        #expect(api.resets.value == 1)
        #expect(throws: APIError.self) { try Amplify.API.getPlugin(for: "testAPIPlugin") }
        await Amplify.Auth.reset()
        let auth = await error(AuthError.self) { _ = try await Amplify.Auth.getCurrentUser() }
        #expect(auth?.errorDescription == "Amplify.Auth was used before Amplify.configure().")
        await Amplify.Storage.reset()
        await Amplify.Analytics.reset()
        let hub = Amplify.Hub.plugin
        await Amplify.Hub.reset()
        #expect(Amplify.Hub.plugin !== hub)
        await Amplify.Logging.reset()
        await Amplify.reset()
    }

    @Test("LogLevel and CategoryType have amplify-swift's names, cases and raw values")
    func namesAndRawValues() {
        let levels: [LogLevel] = [.error, .warn, .info, .debug, .verbose, .none]
        #expect(levels.map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect(LogLevel.self == Amplify.LogLevel.self)
        #expect(
            CategoryType.allCases.map(\.rawValue) == [
                "analytics", "api", "auth", "dataStore", "geo", "hub", "logging", "predictions", "pushNotifications", "storage",
            ])
        let name: HubPayloadEventName = HubPayload.EventName.Auth.signedIn
        #expect(HubPayload(eventName: name).eventName == "Auth.signedIn")
    }
}

/// A Logging plugin whose key is empty.
final class EmptyKeyLoggingPlugin: LoggingCategoryPlugin {
    private let inner = RecordingLoggingPlugin()
    var key: PluginKey { "" }
    var logLevel: Amplify.LogLevel {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }
    func configure(using configuration: Any?) throws {}
    func reset() async {}
    var `default`: any Logger { inner.default }
    func logger(forCategory category: String, logLevel: Amplify.LogLevel) -> any Logger { inner.logger(forCategory: category, logLevel: logLevel) }
    func logger(forCategory category: String) -> any Logger { inner.logger(forCategory: category) }
    func logger(forNamespace namespace: String) -> any Logger { inner.logger(forNamespace: namespace) }
    func enable() {}
    func disable() {}
}

extension AmplifyLifecycleTests {
    @Test("Amplify.configure(_:) with an AmplifyOutputsData configures the plugins as the file would")
    func configureWithDecodedOutputs() async throws {
        await fresh()
        Amplify.registry.register(key: "awsCognitoAuthPlugin", category: .auth) { TestAuthPlugin(key: "awsCognitoAuthPlugin") }
        let outputs = AmplifyOutputsData(auth: .init(awsRegion: "us-west-2", userPoolId: "us-west-2_Data1", userPoolClientId: "client"))
        try Amplify.configure(outputs)
        #expect(Amplify.isConfigured)
        #expect(configureRecords.value.first?.block?.value(at: "CognitoUserPool.Default.PoolId") == "us-west-2_Data1")
        await Amplify.reset()
    }
}

extension AmplifyLifecycleTests {
    @Test("unregisterGlobalProperties takes an array, a list or a set; an empty array or no names unregisters all, as amplify-swift does")
    func unregisterGlobalPropertiesForms() async throws {
        await fresh()
        let plugin = TestAnalyticsPlugin()
        try Amplify.add(plugin: plugin)
        try Amplify.configure(AmplifyConfiguration())
        Amplify.Analytics.unregisterGlobalProperties(["b", "a", "a"])
        Amplify.Analytics.unregisterGlobalProperties([String]())
        Amplify.Analytics.unregisterGlobalProperties("c")
        Amplify.Analytics.unregisterGlobalProperties(Set(["d"]))
        Amplify.Analytics.unregisterGlobalProperties()
        #expect(plugin.recorded.value == ["unregister:a,b", "unregister:all", "unregister:c", "unregister:d", "unregister:all"])
        await Amplify.reset()
    }
}

/// Records the path each call resolves to (identity id `id-7`); lists what was uploaded.
final class PathRecordingStoragePlugin: StorageCategoryPlugin {
    let key: PluginKey = "pathRecordingStoragePlugin"
    let paths = Locked<[String]>([])
    private let stored = Locked<[String]>([])

    func configure(using configuration: Any?) throws {}
    func reset() async {}

    private func resolve(_ path: any StoragePath, _ call: String) async throws -> String {
        let resolved = try await path.resolve(identityId: { "id-7" })
        paths.withLock { $0.append("\(call) \(resolved)") }
        return resolved
    }

    private func finished<T>(_ body: @escaping @Sendable () async throws -> T) -> StorageTransferTask<T> {
        let (task, controller) = StorageTransferTask<T>.make()
        Task {
            do { controller.succeed(try await body()) } catch { controller.fail(error) }
        }
        return task
    }

    func uploadData(path: any StoragePath, data: Data, options: StorageUploadDataRequest.Options?) -> StorageUploadDataTask {
        finished {
            let key = try await self.resolve(path, "upload")
            self.stored.withLock { $0.append(key) }
            return key
        }
    }
    func uploadFile(path: any StoragePath, local: URL, options: StorageUploadFileRequest.Options?) -> StorageUploadFileTask {
        finished { try await self.resolve(path, "uploadFile") }
    }
    func downloadData(path: any StoragePath, options: StorageDownloadDataRequest.Options?) -> StorageDownloadDataTask {
        finished { Data(try await self.resolve(path, "download").utf8) }
    }
    func downloadFile(path: any StoragePath, local: URL, options: StorageDownloadFileRequest.Options?) -> StorageDownloadFileTask {
        finished { _ = try await self.resolve(path, "downloadFile") }
    }
    func getURL(path: any StoragePath, options: StorageGetURLRequest.Options?) async throws -> URL {
        URL(fileURLWithPath: "/" + (try await resolve(path, "url")))
    }
    func remove(path: any StoragePath, options: StorageRemoveRequest.Options?) async throws -> String { try await resolve(path, "remove") }
    func list(path: any StoragePath, options: StorageListRequest.Options?) async throws -> StorageListResult {
        let prefix = try await resolve(path, "list")
        return StorageListResult(items: stored.value.filter { $0.hasPrefix(prefix) }.map { StorageListResult.Item(path: $0) })
    }
}

/// amplify-swift's deprecated key-based calls, reached through a protocol so that calling them
/// here does not warn (the package builds with zero warnings).
protocol KeyBasedStorageCalls {
    func uploadData(key: String, data: Data, options: StorageUploadDataRequest.Options?) -> StorageUploadDataTask
    func downloadData(key: String, options: StorageDownloadDataRequest.Options?) -> StorageDownloadDataTask
    func getURL(key: String, options: StorageGetURLRequest.Options?) async throws -> URL
    func remove(key: String, options: StorageRemoveRequest.Options?) async throws -> String
    func list(options: StorageListRequest.Options?) async throws -> StorageListResult
}

extension StorageCategory: KeyBasedStorageCalls {}

/// The key an item of a deprecated `list(options:)` carries, read without a warning.
protocol LegacyKeyed { var key: String { get } }
extension StorageListResult.Item: LegacyKeyed {}

extension AmplifyLifecycleTests {
    @Test("the deprecated key-based Storage calls map access levels to amplify-swift's prefixes and return keys")
    func keyBasedStorageCalls() async throws {
        await fresh()
        let plugin = PathRecordingStoragePlugin()
        try Amplify.add(plugin: plugin)
        try Amplify.configure(AmplifyConfiguration())
        let storage: any KeyBasedStorageCalls = Amplify.Storage
        #expect(try await storage.uploadData(key: "a.txt", data: Data(), options: nil).value == "a.txt")
        #expect(try await storage.uploadData(key: "b.txt", data: Data(), options: .init(accessLevel: .protected)).value == "b.txt")
        _ = try await storage.uploadData(key: "c.txt", data: Data(), options: .init(accessLevel: .private)).value
        #expect(
            try await storage.downloadData(key: "b.txt", options: .init(accessLevel: .protected, targetIdentityId: "id-9")).value
                == Data("protected/id-9/b.txt".utf8))
        #expect(try await storage.getURL(key: "a.txt", options: nil).path == "/public/a.txt")
        #expect(try await storage.remove(key: "c.txt", options: .init(accessLevel: .private)) == "c.txt")
        let listed = try await storage.list(options: .init(accessLevel: .protected))
        #expect(listed.items.map(\.path) == ["protected/id-7/b.txt"])
        #expect(listed.items.map { ($0 as any LegacyKeyed).key } == ["b.txt"])
        #expect(
            plugin.paths.value == [
                "upload public/a.txt", "upload protected/id-7/b.txt", "upload private/id-7/c.txt", "download protected/id-9/b.txt",
                "url public/a.txt", "remove private/id-7/c.txt", "list protected/id-7/",
            ])
        await Amplify.reset()
    }

    @Test(
        "every category error has amplify-swift's init(errorDescription:recoverySuggestion:error:): its own kind stays as it is, anything else becomes its unknown case"
    )
    func errorWrappingInitialisers() {
        struct Other: Error {}
        let auth = AuthError(errorDescription: "wrapped", error: Other())
        guard case .unknown("wrapped", let underlying) = auth, underlying is Other else {
            Issue.record("\(auth)")
            return
        }
        let same = AuthError.sessionExpired("gone", "sign in", nil)
        guard case .sessionExpired = AuthError(error: same) else {
            Issue.record("an AuthError was rewrapped")
            return
        }
        #expect(StorageError(error: Other()).errorDescription == "An unknown error occurred")
        #expect(AnalyticsError(errorDescription: "a", error: Other()).errorDescription == "a")
        #expect(APIError(errorDescription: "b", recoverySuggestion: "c", error: Other()).recoverySuggestion == "c")
        #expect(HubError(errorDescription: "d", error: Other()).errorDescription == "d")
        #expect(PluginError(errorDescription: "e", error: Other()).underlyingError is Other)
        #expect(ConfigurationError(errorDescription: "f", error: Other()).errorDescription == "f")
        #expect(LoggingError(error: Other()).underlyingError is Other)
    }

    @Test("GraphQLTask<R>.Success and RESTTask.Success name what the API calls return, as amplify-swift's plugin signatures spell them")
    func apiTaskResultNames() throws {
        func query(_ request: GraphQLRequest<String>) -> GraphQLTask<String>.Success { GraphQLResponse<String>.success(request.document) }
        let response = query(GraphQLRequest<String>(document: "query { a }", responseType: String.self))
        #expect(try response.get() == "query { a }")
        let body: RESTTask.Success = Data("ok".utf8)
        #expect(body.count == 2)
    }

    @Test("StoragePath has amplify-swift's initialisers: resolve, pathResolver, fromIdentityId, IdentityIdStoragePath")
    func storagePathInitialisers() async throws {
        let string = StringStoragePath(pathResolver: { _ in "public/x" })
        #expect(try await string.resolve(identityId: { "ignored" }) == "public/x")
        #expect(string.pathResolver("anything") == "public/x")
        let identity = IdentityIdStoragePath(pathResolver: { "private/\($0)/y" })
        #expect(try await identity.resolve(identityId: { "me" }) == "private/me/y")
        let path: any StoragePath = .fromIdentityId { "protected/\($0)/z" }
        #expect(try await path.resolve(identityId: { "me" }) == "protected/me/z")
        // The released amplify-swift v2 spelling: init(resolve:) and a resolve closure.
        let released = StringStoragePath(resolve: { _ in "/path" })
        #expect(released.resolve("input") == "/path")
        let resolver: IdentityIDPathResolver = { "/path/\($0)" }
        let byIdentity = IdentityIDStoragePath(resolve: resolver)
        #expect(byIdentity.resolve("input") == "/path/input")
        #expect(try await byIdentity.resolve(identityId: { "id" }) == "/path/id")
    }
}
