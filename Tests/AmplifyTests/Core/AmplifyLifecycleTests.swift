import Amplify
import AmplifyConcurrency
import AmplifyTestKit
import Foundation
import Testing

/// Tests of the process-wide `Amplify` state: serialized, each starting from `Amplify.reset()`.
@Suite("Amplify lifecycle", .serialized)
struct AmplifyLifecycleTests {
    func fresh() async {
        await Amplify.reset()
        // Only the keys these tests register: other suites register the built-in ones meanwhile.
        for key in ["testAuthPlugin", "testAnalyticsPlugin", "testStoragePlugin", "testAPIPlugin", "awsCognitoAuthPlugin", "awsS3StoragePlugin"] {
            Amplify.registry.unregister(key)
        }
        configureRecords.withLock { $0.removeAll() }
    }

    func error<E: Error>(_ type: E.Type, _ body: () async throws -> Void) async -> E? {
        do {
            try await body()
        } catch let error as E {
            return error
        } catch {
            Issue.record("expected \(E.self), got \(error)")
            return nil
        }
        Issue.record("expected \(E.self), nothing was thrown")
        return nil
    }

    @Test("Auth used before configure throws a configuration error that says so")
    func authBeforeConfigure() async throws {
        await fresh()
        try Amplify.add(plugin: TestAuthPlugin())
        let thrown = await error(AuthError.self) { _ = try await Amplify.Auth.signIn(username: "a", password: "b") }
        guard case .configuration(let description, let suggestion, _) = thrown else {
            Issue.record("\(String(describing: thrown))")
            return
        }
        #expect(description == "Amplify.Auth was used before Amplify.configure().")
        #expect(suggestion.contains("Call Amplify.configure()"))
        await Amplify.reset()
    }

    @Test("configure applies each plugin's block, Logging and Hub before Auth, then Amplify.configured on every channel")
    func configureAppliesBlocksInOrder() async throws {
        await fresh()
        try Amplify.add(plugin: TestAuthPlugin())
        try Amplify.add(plugin: TestAnalyticsPlugin())
        try Amplify.add(plugin: TestStoragePlugin())
        let recorders = HubChannel.amplifyChannels.map { HubEventRecorder(channel: $0) }
        try Amplify.configure(
            AmplifyConfiguration(
                analytics: CategoryConfiguration(plugins: ["testAnalyticsPlugin": ["stream": "events"]]),
                auth: CategoryConfiguration(plugins: ["testAuthPlugin": ["poolId": "p1"]]),
                hub: CategoryConfiguration(plugins: ["defaultHubPlugin": ["slowListenerThresholdMilliseconds": 75]]),
                logging: CategoryConfiguration(plugins: ["consoleLoggingPlugin": ["logLevel": "debug"]]),
                storage: CategoryConfiguration(plugins: ["testStoragePlugin": ["bucket": "b"]])))
        #expect(Amplify.isConfigured)
        let records = configureRecords.value
        #expect(records.map(\.key) == ["testAuthPlugin", "testAnalyticsPlugin", "testStoragePlugin"])
        #expect(records.first?.block == ["poolId": "p1"])
        #expect(records.allSatisfy { $0.hubThreshold == .milliseconds(75) })
        if ProcessInfo.processInfo.environment["AMPLIFY_LOG_LEVEL"] == nil {
            #expect(records.allSatisfy { $0.logLevel == .debug })
        }
        await Amplify.Hub.flush()
        for recorder in recorders { #expect(recorder.eventNames == ["Amplify.configured"]) }
        #expect(try await Amplify.Auth.signIn(username: "a", password: "b").isSignedIn)
        await Amplify.reset()
    }

    @Test("Logging starts with the swift-log plugin; a consoleLoggingPlugin block swaps in the console plugin; reset goes back to swift-log")
    func loggingPluginChoice() async throws {
        await fresh()
        #expect(Amplify.Logging.plugin is SwiftLogLoggingPlugin)
        #expect(Amplify.Logging.plugin.key == "swiftLogLoggingPlugin")
        try Amplify.configure(AmplifyConfiguration(logging: CategoryConfiguration(plugins: ["consoleLoggingPlugin": ["logLevel": "info"]])))
        #expect(Amplify.Logging.plugin is ConsoleLoggingPlugin)
        #expect(Amplify.configurationFindings.isEmpty)
        await Amplify.reset()
        #expect(Amplify.Logging.plugin is SwiftLogLoggingPlugin)
        try Amplify.configure(
            AmplifyConfiguration(logging: CategoryConfiguration(plugins: ["swiftLogLoggingPlugin": ["categoryLogLevel": ["Auth": "verbose"]]])))
        #expect((Amplify.Logging.plugin as? SwiftLogLoggingPlugin)?.logLevel(forCategory: "Auth") == .verbose)
        await Amplify.reset()
    }

    @Test("an API plugin is routed to Amplify.API, configured after Storage with its block, reached by calls, and reset by Amplify.reset")
    func apiCategory() async throws {
        await fresh()
        let plugin = TestAPIPlugin()
        try Amplify.add(plugin: plugin)
        try Amplify.add(plugin: TestStoragePlugin())
        let early = await error(APIError.self) {
            _ = try await Amplify.API.query(request: GraphQLRequest(document: "{ a }", responseType: JSONValue.self))
        }
        guard case .invalidConfiguration(let description, _, _)? = early else {
            Issue.record("\(String(describing: early))")
            return
        }
        #expect(description == "Amplify.API was used before Amplify.configure().")
        try Amplify.configure(
            AmplifyConfiguration(
                api: CategoryConfiguration(plugins: [
                    "testAPIPlugin": ["notes": ["endpoint": "https://a/graphql"], "admin": ["endpoint": "https://b"]]
                ]),
                storage: CategoryConfiguration(plugins: ["testStoragePlugin": ["bucket": "b"]])))
        #expect(configureRecords.value.map(\.key) == ["testStoragePlugin", "testAPIPlugin"])
        #expect(try await Amplify.API.query(request: GraphQLRequest(document: "{ a }", responseType: JSONValue.self)).get() == ["admin", "notes"])
        #expect(try await Amplify.API.get(request: RESTRequest(path: "/x")) == Data("/x".utf8))
        #expect(try Amplify.API.getPlugin(for: "testAPIPlugin") === plugin)
        var states: [SubscriptionConnectionState] = []
        for try await event in Amplify.API.subscribe(request: GraphQLRequest(document: "subscription { a }", responseType: JSONValue.self)) {
            if case .connection(let state) = event { states.append(state) }
        }
        #expect(states == [.connecting])
        await Amplify.reset()
        #expect(plugin.resets.value == 1)
        #expect(throws: APIError.self) { try Amplify.API.getPlugin(for: "testAPIPlugin") }
    }

    @Test("a bad value in an API's block is named by its full path, API name included")
    func apiBlockErrorPath() async throws {
        await fresh()
        try Amplify.add(plugin: TestAPIPlugin())
        let thrown = await error(PluginError.self) {
            try Amplify.configure(AmplifyConfiguration(api: CategoryConfiguration(plugins: ["testAPIPlugin": ["my api": ["region": "us-east-1"]]])))
        }
        guard case .pluginConfigurationError(let description, _, _) = thrown else {
            Issue.record("\(String(describing: thrown))")
            return
        }
        #expect(description == "`api.plugins.testAPIPlugin.my api.endpoint` in the configuration is missing; expected an http or https URL.")
        #expect(!Amplify.isConfigured)
        let sequence = Amplify.API.subscribe(request: GraphQLRequest(document: "subscription { a }", responseType: JSONValue.self))
        let failed = await error(APIError.self) { for try await _ in sequence {} }
        #expect(failed?.errorDescription == "Amplify.API was used before Amplify.configure().")
        await Amplify.reset()
    }

    @Test("a second configure throws amplifyAlreadyConfigured, and add(plugin:) after configure is refused")
    func configureTwiceAndLateAdd() async throws {
        await fresh()
        try Amplify.configure(AmplifyConfiguration())
        let second = await error(ConfigurationError.self) { try Amplify.configure(AmplifyConfiguration()) }
        guard case .amplifyAlreadyConfigured(let description, _, _) = second else {
            Issue.record("\(String(describing: second))")
            return
        }
        #expect(description == "Amplify.configure() was called, but Amplify is already configured.")
        let late = await error(ConfigurationError.self) { try Amplify.add(plugin: TestAuthPlugin()) }
        #expect(late?.errorDescription == "Amplify.add(plugin:) was called for 'testAuthPlugin' after Amplify.configure().")
        await Amplify.reset()
    }

    @Test("with two Auth plugins a call that needs one says which keys there are; getPlugin reaches each")
    func twoPluginsForOneCategory() async throws {
        await fresh()
        try Amplify.add(plugin: TestAuthPlugin(key: "first"))
        try Amplify.add(plugin: TestAuthPlugin(key: "second"))
        try Amplify.configure(AmplifyConfiguration())
        let thrown = await error(AuthError.self) { _ = try await Amplify.Auth.signIn(username: "a", password: "b") }
        #expect(thrown?.errorDescription == "The Auth category has 2 plugins (first, second) and this call needs exactly one.")
        #expect(try Amplify.Auth.getPlugin(for: "second").key == "second")
        let missing = await error(AuthError.self) { _ = try Amplify.Auth.getPlugin(for: "third") }
        guard case .configuration(let description, let suggestion, _)? = missing else {
            Issue.record("\(String(describing: missing))")
            return
        }
        #expect(description == "No plugin has been added for 'third'.")
        #expect(suggestion == "Either add a plugin for 'third', or use one of the known keys: first, second.")
        await Amplify.reset()
    }

    @Test("a category with no plugin throws noPlugin; Storage transfers fail their task the same way")
    func noPlugin() async throws {
        await fresh()
        try Amplify.configure(AmplifyConfiguration())
        let auth = await error(AuthError.self) { _ = try await Amplify.Auth.getCurrentUser() }
        #expect(auth?.errorDescription == "No plugin was added to the Auth category.")
        let task = Amplify.Storage.uploadData(path: .fromString("public/a"), data: Data("x".utf8))
        let storage = await error(StorageError.self) { _ = try await task.value }
        #expect(storage?.errorDescription == "No plugin was added to the Storage category.")
        #expect(task.state == .failed)
        await Amplify.reset()
    }

    @Test("Analytics used before configure reports the error through Logging and the Hub, and does not throw")
    func analyticsBeforeConfigure() async throws {
        await fresh()
        let logs = RecordingLoggingPlugin()
        try Amplify.add(plugin: logs)
        let recorder = HubEventRecorder(channel: .analytics)
        Amplify.Analytics.record(eventWithName: "opened")
        await Amplify.Hub.flush()
        #expect(recorder.eventNames == ["Analytics.record"])
        #expect(recorder.payloads.first?.data is AnalyticsError)
        #expect(logs.messages.contains { $0.level == .error && $0.category == "Analytics" && $0.message.contains("before Amplify.configure()") })
        await Amplify.reset()
    }

    @Test("plugins named in the file are made by their registered factories and get their own block")
    func registryMakesPlugins() async throws {
        await fresh()
        Amplify.registry.register(key: "testAuthPlugin", category: .auth) { TestAuthPlugin() }
        Amplify.registry.register(key: "testAnalyticsPlugin", category: .analytics) { TestAnalyticsPlugin() }
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        let file = try folder.write(
            "amplifyconfiguration.json",
            """
            {"auth": {"plugins": {"testAuthPlugin": {"region": "eu-west-1", "database": "data/users.sqlite"}}},
             "analytics": {"plugins": {"testAnalyticsPlugin": {}}}}
            """)
        try Amplify.configure(AmplifyConfiguration(configurationFile: file))
        #expect(try Amplify.Auth.getPlugin(for: "testAuthPlugin").key == "testAuthPlugin")
        #expect(configureRecords.value.first?.block?["region"] == "eu-west-1")
        #expect(Amplify.resolvePath("data/users.sqlite") == folder.url.appendingPathComponent("data/users.sqlite").standardizedFileURL.path)
        #expect(Amplify.resolvePath("/abs/x") == "/abs/x")
        let analytics = try #require(try Amplify.Analytics.getPlugin(for: "testAnalyticsPlugin") as? TestAnalyticsPlugin)
        Amplify.Analytics.record(eventWithName: "opened")
        #expect(analytics.recorded.value == ["opened"])
        await Amplify.reset()
        // The factories outlive reset; the plugins they made do not.
        #expect(Amplify.registry.keys(for: .auth).contains("testAuthPlugin"))
        #expect(throws: AuthError.self) { try Amplify.Auth.getPlugin(for: "testAuthPlugin") }
    }

    @Test(
        "a block its factory says names nothing (the CLI's stub) makes no plugin: a placeholder finding, and the rest configures; an added plugin still gets its block"
    )
    func stubBlockMakesNoPlugin() async throws {
        await fresh()
        Amplify.registry.register(key: "stubbedAuthPlugin", category: .auth, namesResources: { $0["PoolId"] != nil }) {
            TestAuthPlugin(key: "stubbedAuthPlugin")
        }
        defer { Amplify.registry.unregister("stubbedAuthPlugin") }
        try Amplify.configure(
            AmplifyConfiguration(
                auth: CategoryConfiguration(plugins: ["stubbedAuthPlugin": ["UserAgent": "cli", "IdentityManager": ["Default": [:]]]])))
        #expect(throws: AuthError.self) { try Amplify.Auth.getPlugin(for: "stubbedAuthPlugin") }
        let finding = try #require(Amplify.configurationFindings.first)
        #expect(finding.kind == .placeholder && finding.path == "auth.plugins.stubbedAuthPlugin")
        #expect(finding.message.contains("names nothing the stubbedAuthPlugin plugin can use"))
        await Amplify.reset()
        // A block that names a resource makes the plugin as before.
        try Amplify.configure(AmplifyConfiguration(auth: CategoryConfiguration(plugins: ["stubbedAuthPlugin": ["PoolId": "p"]])))
        #expect(try Amplify.Auth.getPlugin(for: "stubbedAuthPlugin").key == "stubbedAuthPlugin")
        #expect(Amplify.configurationFindings.isEmpty)
        await Amplify.reset()
    }

    @Test("a key with no plugin and no factory is a warning naming the known keys, and the rest configures")
    func unknownKeyWarns() async throws {
        await fresh()
        Amplify.registry.register(key: "localAuthPlugin", category: .auth) { TestAuthPlugin(key: "localAuthPlugin") }
        try Amplify.add(plugin: TestAuthPlugin(key: "addedAuthPlugin"))
        let warnings = Locked<[ConfigurationFinding]>([])
        let token = Amplify.Hub.listen(to: .logging, eventName: HubPayload.EventName.Amplify.configurationWarning) { payload in
            if let finding = payload.data as? ConfigurationFinding { warnings.withLock { $0.append(finding) } }
        }
        try Amplify.configure(AmplifyConfiguration(auth: CategoryConfiguration(plugins: ["awsCognitoAuthPlugin": [:], "addedAuthPlugin": [:]])))
        #expect(Amplify.isConfigured)
        #expect(try Amplify.Auth.getPlugin(for: "addedAuthPlugin").key == "addedAuthPlugin")
        let finding = try #require(Amplify.configurationFindings.first)
        #expect(Amplify.configurationFindings.count == 1)
        #expect(finding.kind == .unusedPlugin)
        #expect(finding.path == "auth.plugins.awsCognitoAuthPlugin")
        #expect(
            finding.message
                == "No plugin found for configuration key 'awsCognitoAuthPlugin' (`auth.plugins.awsCognitoAuthPlugin` in the configuration): no Auth plugin with that key was added or registered (known keys: addedAuthPlugin, localAuthPlugin); the block is skipped."
        )
        #expect(finding.suggestion.contains("Amplify.registerBuiltInPlugins()"))
        await Amplify.Hub.flush()
        #expect(warnings.withLock { $0 } == [finding])
        Amplify.Hub.removeListener(token)
        await Amplify.reset()
        #expect(Amplify.configurationFindings.isEmpty)
    }

    @Test("a Pinpoint analytics block is skipped with the end-of-support warning; auth and storage configure; Analytics calls give the advice")
    func pinpointSkipped() async throws {
        await fresh()
        Amplify.registry.register(key: "awsCognitoAuthPlugin", category: .auth) { TestAuthPlugin(key: "awsCognitoAuthPlugin") }
        Amplify.registry.register(key: "awsS3StoragePlugin", category: .storage) { TestStoragePlugin() }
        let results = Locked<[AnalyticsError]>([])
        let token = Amplify.Hub.listen(to: .analytics) { payload in
            if let error = payload.data as? AnalyticsError { results.withLock { $0.append(error) } }
        }
        try Amplify.configure(AmplifyConfiguration(configurationFile: Samples.url("amplifyconfiguration.json")))
        #expect(try Amplify.Auth.getPlugin(for: "awsCognitoAuthPlugin").key == "awsCognitoAuthPlugin")
        #expect(try Amplify.Storage.getPlugin(for: "testStoragePlugin").key == "testStoragePlugin")
        let pinpoint = try #require(Amplify.configurationFindings.first { $0.kind == .retiredService })
        #expect(pinpoint.path == "analytics.plugins.awsPinpointAnalyticsPlugin")
        #expect(pinpoint.message.contains("Amazon Pinpoint, which reached end of support on 2026-10-30"))
        #expect(pinpoint.suggestion.contains("awsKinesisAnalyticsPlugin"))
        Amplify.Analytics.record(eventWithName: "opened")
        await Amplify.Hub.flush()
        let refused = try #require(results.withLock { $0.first })
        #expect(refused.errorDescription.contains("No plugin was added to the Analytics category: `analytics.plugins.awsPinpointAnalyticsPlugin`"))
        #expect(refused.recoverySuggestion.contains("awsKinesisAnalyticsPlugin"))
        Amplify.Hub.removeListener(token)
        await Amplify.reset()
    }

    @Test("a plugin's configuration warnings become suspiciousValue findings naming the full path, and the rest configures")
    func pluginWarningsBecomeFindings() async throws {
        await fresh()
        let warning = ConfigurationWarning(
            path: "CognitoUserPool.Default.Region", message: "the region is a, but the pool is in b.", suggestion: "Set it to b.")
        try Amplify.add(plugin: TestAuthPlugin(warnings: [warning]))
        try Amplify.configure(AmplifyConfiguration(auth: CategoryConfiguration(plugins: ["testAuthPlugin": [:]])))
        #expect(Amplify.isConfigured)
        #expect(
            Amplify.configurationFindings == [
                ConfigurationFinding(
                    kind: .suspiciousValue, path: "auth.plugins.testAuthPlugin.CognitoUserPool.Default.Region",
                    message:
                        "`auth.plugins.testAuthPlugin.CognitoUserPool.Default.Region` in the configuration: the region is a, but the pool is in b.",
                    suggestion: "Set it to b.")
            ])
        #expect(Amplify.configurationFindings.allSatisfy { $0.isWarning })
        await Amplify.reset()
    }

    @Test("a string of the wrong form is quoted in the error, unless its key looks like it holds a secret")
    func wrongFormQuotedUnlessSecret() async throws {
        for (key, shown) in [("PoolId", #"is "your-pool-id""#), ("AppClientSecret", "is a string"), ("apiKey", "is a string")] {
            await fresh()
            Amplify.registry.register(key: "testAuthPlugin", category: .auth) { TestAuthPlugin(refusedKey: key) }
            let configuration = AmplifyConfiguration(auth: CategoryConfiguration(plugins: ["testAuthPlugin": [key: "your-pool-id"]]))
            let thrown = await error(PluginError.self) { try Amplify.configure(configuration) }
            #expect(
                thrown?.errorDescription == "`auth.plugins.testAuthPlugin.\(key)` in the configuration \(shown); expected a value of another form.")
        }
        await Amplify.reset()
    }

    @Test("a missing required value is named by its full JSON path, and nothing stays half-configured")
    func missingRequiredValue() async throws {
        await fresh()
        Amplify.registry.register(key: "testAuthPlugin", category: .auth) { TestAuthPlugin(requiresPoolId: true) }
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        let bad = try folder.write(
            "bad.json", #"{"auth": {"plugins": {"testAuthPlugin": {"CognitoUserPool": {"Default": {"Region": "us-east-1"}}}}}}"#)
        let thrown = await error(PluginError.self) { try Amplify.configure(AmplifyConfiguration(configurationFile: bad)) }
        guard case .pluginConfigurationError(let description, _, _) = thrown else {
            Issue.record("\(String(describing: thrown))")
            return
        }
        #expect(description == "`auth.plugins.testAuthPlugin.CognitoUserPool.Default.PoolId` in \(bad.path) is missing; expected a non-empty string.")
        #expect(!Amplify.isConfigured)
        #expect(throws: AuthError.self) { try Amplify.Auth.getPlugin(for: "testAuthPlugin") }
        let good = try folder.write("good.json", #"{"auth": {"plugins": {"testAuthPlugin": {"CognitoUserPool": {"Default": {"PoolId": "p"}}}}}}"#)
        try Amplify.configure(AmplifyConfiguration(configurationFile: good))
        #expect(Amplify.isConfigured)
        await Amplify.reset()
    }

    @Test("a factory key placed under the wrong category is refused")
    func factoryUnderWrongCategory() async throws {
        await fresh()
        Amplify.registry.register(key: "testStoragePlugin", category: .storage) { TestStoragePlugin() }
        let thrown = await error(PluginError.self) {
            try Amplify.configure(AmplifyConfiguration(auth: CategoryConfiguration(plugins: ["testStoragePlugin": [:]])))
        }
        guard case .mismatchedPlugin(let description, _, _) = thrown else {
            Issue.record("\(String(describing: thrown))")
            return
        }
        #expect(description.contains("which is a Storage plugin, under Auth"))
        await Amplify.reset()
    }

    @Test("add(plugin:) refuses an empty key with the category's error, and a plugin of no supported category")
    func badPlugins() async throws {
        await fresh()
        let empty = await error(AuthError.self) { try Amplify.add(plugin: TestAuthPlugin(key: "")) }
        guard case .configuration(let description, _, _)? = empty else {
            Issue.record("\(String(describing: empty))")
            return
        }
        #expect(description == "Plugin TestAuthPlugin has an empty `key`.")
        let categoryless = await error(PluginError.self) { try Amplify.add(plugin: CategorylessPlugin()) }
        guard case .mismatchedPlugin = categoryless else {
            Issue.record("\(String(describing: categoryless))")
            return
        }
        await Amplify.reset()
    }

    @Test("Amplify.configure(with: .data) reads a Gen 2 file and reports its bad JSON as unableToDecode, as amplify-swift does")
    func configureWithOutputsData() async throws {
        await fresh()
        let bad = await error(ConfigurationError.self) { try Amplify.configure(with: .data(Data("{".utf8))) }
        guard case .unableToDecode = bad else {
            Issue.record("\(String(describing: bad))")
            return
        }
        Amplify.registry.register(key: "awsCognitoAuthPlugin", category: .auth) { TestAuthPlugin(key: "awsCognitoAuthPlugin") }
        Amplify.registry.register(key: "awsS3StoragePlugin", category: .storage) { TestStoragePlugin() }
        try Amplify.configure(with: .file(Samples.url("amplify_outputs.json")))
        #expect(configureRecords.value.first?.block?.value(at: "CognitoUserPool.Default.PoolId") == "us-west-2_Gen2Pool1")
        await Amplify.reset()
    }

    @Test("the Hub works before configure")
    func hubBeforeConfigure() async throws {
        await fresh()
        let recorder = HubEventRecorder(channel: .custom("app"))
        Amplify.Hub.dispatch(to: .custom("app"), payload: HubPayload(eventName: "hello"))
        #expect(await recorder.waitForEvents(count: 1))
        #expect(!Amplify.isConfigured)
        #expect(try Amplify.Hub.getPlugin(for: "defaultHubPlugin").key == "awsHubPlugin")
        #expect(try Amplify.Hub.getPlugin(for: "awsHubPlugin") === Amplify.Hub.getPlugin(for: "defaultHubPlugin"))
        let other = await error(HubError.self) { _ = try Amplify.Hub.getPlugin(for: "redisHubBridgePlugin") }
        #expect(other?.errorDescription == "No plugin has been added for 'redisHubBridgePlugin'.")
        await Amplify.reset()
    }

    @Test("a Hub made after the shared loop was shut down (not through reset) starts on a new shared loop and delivers")
    func hubAfterSharedLoopShutDown() async throws {
        await fresh()
        let logs = RecordingLoggingPlugin()
        try Amplify.add(plugin: logs)
        let old = try Amplify.eventLoop()
        try old.shutdown()
        let hub = DefaultHubPlugin()
        #expect(!hub.isClosed)
        #expect(try Amplify.eventLoop() !== old)
        let received = Locked(0)
        _ = hub.listen(to: .custom("after"), isIncluded: nil, file: #fileID, line: #line) { _ in received.withLock { $0 += 1 } }
        hub.dispatch(to: .custom("after"), payload: HubPayload(eventName: "e"))
        await hub.flush()
        #expect(received.value == 1)
        #expect(!logs.messages.contains { $0.message.contains("could not start") })
        await hub.reset()
        await Amplify.reset()
    }

    @Test("Hubs made while another thread shuts the shared loop down all start: 200 races, no 'could not start' error")
    func hubStartRacingSharedLoopShutdown() async throws {
        await fresh()
        let logs = RecordingLoggingPlugin()
        try Amplify.add(plugin: logs)
        try await offThePool {
            for _ in 0..<200 {
                let loop = try Amplify.eventLoop()
                // A Hub that started on the loop being shut down closes with it; one that could
                // not start at all logs the error counted below.
                onThreads(2) { index in
                    if index == 0 { try? loop.shutdown() } else { _ = DefaultHubPlugin() }
                }
            }
        }
        let errors = logs.messages.filter { $0.message.contains("could not start") }
        #expect(errors.count == 0, "Hubs could not start: \(errors.first?.message ?? "")")
        await Amplify.reset()
    }

    @Test("a slow listener is reported once, with the file and line where it was registered")
    func slowListenerReported() async throws {
        await fresh()
        let logs = RecordingLoggingPlugin()
        try Amplify.add(plugin: logs)
        let hub = try #require(Amplify.Hub.plugin as? DefaultHubPlugin)
        hub.slowListenerThreshold = .milliseconds(20)
        let line = #line + 1
        Amplify.Hub.listen(to: .custom("slow")) { _ in usleep(120_000) }
        Amplify.Hub.dispatch(to: .custom("slow"), payload: HubPayload(eventName: "a"))
        Amplify.Hub.dispatch(to: .custom("slow"), payload: HubPayload(eventName: "b"))
        await Amplify.Hub.flush()
        let reports = logs.messages.filter { $0.level == .warn && $0.category == "Hub" && $0.message.contains("AmplifyLifecycleTests.swift:\(line)") }
        #expect(reports.count == 1)
        #expect(reports.first?.message.contains("more than 20 ms") == true)
        await Amplify.reset()
    }

    @Test("reset under load delivers everything dispatched, then leaves no handle, thread or listener")
    func resetUnderLoad() async throws {
        await fresh()
        let loop = try Amplify.eventLoop()
        let delivered = Counter()
        for _ in 0..<4 { Amplify.Hub.listen(to: .auth) { _ in delivered.increment() } }
        let stream = Amplify.Hub.events(on: .auth)
        let streamed = Task {
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        onThreads(2) { _ in
            for _ in 0..<25_000 { Amplify.Hub.dispatch(to: .auth, payload: HubPayload(eventName: "load")) }
        }
        let running = threadNames()
        #expect(running.contains("amplify-loop"))
        #expect(running.contains("watch-amplify-l"))
        await Amplify.reset()
        #expect(delivered.value == 4 * 50_000)
        #expect(await streamed.value == 50_000)
        #expect(loop.isShutDown)
        #expect(loop.loopClosedCleanly)
        #expect(threadNames().filter { $0 == "amplify-loop" || $0 == "watch-amplify-l" }.isEmpty)
    }
}

/// The names of this process's threads.
func threadNames() -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
        .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
}
