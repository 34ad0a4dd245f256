import AmplifyPlugins
import Testing

@Suite("Plugin versions")
struct PluginVersionTests {
    @Test("every plugin registerBuiltInPlugins can make is AmplifyVersionable and reports Amplify.version")
    func everyBuiltInPluginReportsThePackageVersion() throws {
        Amplify.registerBuiltInPlugins()
        let keys = CategoryType.allCases.flatMap { Amplify.registry.keys(for: $0) }
        #expect(keys.count >= 11)
        for key in keys {
            let plugin = try #require(try Amplify.registry.factory(for: key)?.make())
            let versionable = plugin as? any AmplifyVersionable
            #expect(versionable?.version == Amplify.version, "\(key)")
        }
    }
}
