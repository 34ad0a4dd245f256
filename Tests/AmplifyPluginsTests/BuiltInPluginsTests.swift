import AmplifyPlugins
import Testing

@Suite("Built-in plugin registration")
struct BuiltInPluginsTests {
    @Test("registerBuiltInPlugins registers a factory for every shipped plugin, under its category")
    func registersEveryShippedPlugin() throws {
        Amplify.registerBuiltInPlugins()
        #expect(Amplify.registry.keys(for: .logging).contains("consoleLoggingPlugin"))
        #expect(Amplify.registry.keys(for: .hub).contains("defaultHubPlugin"))
        #expect(Amplify.registry.keys(for: .auth).contains("localAuthPlugin"))
        #expect(Amplify.registry.keys(for: .api) == ["awsAPIPlugin"])
        let logging = try #require(Amplify.registry.factory(for: "consoleLoggingPlugin"))
        let made = try logging.make()
        #expect(made is ConsoleLoggingPlugin)
        Amplify.registerBuiltInPlugins()
        #expect(Amplify.registry.keys(for: .logging).filter { $0 == "consoleLoggingPlugin" }.count == 1)
    }
}
