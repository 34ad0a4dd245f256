import Foundation
import Testing

/// The package's structure, checked from its own files: every import of a package module is a
/// declared direct dependency of the importing target, and every import points down the layer
/// order of the design brief (C targets, the concurrency leaf, the event loop and the other
/// infrastructure, the core, what the plugins share, the plugins, the registration module, then
/// the tool, examples and benchmarks; tests on top). A new target must be given its layer here.
@Suite("Package layout")
struct PackageLayoutTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Layer of each non-C, non-test target; C targets are layer 0, tests are above everything.
    static let layers: [String: Int] = [
        "AmplifyConcurrency": 1, "BenchmarkReport": 1,
        "AmplifyEventLoop": 2, "AmplifyCrypto": 2, "AmplifySQLite": 2, "AmplifyCodegen": 3,
        "Amplify": 3, "AmplifyCurl": 3, "AmplifyRedis": 3,
        "AWSPluginsCore": 4, "AmplifyAuthCore": 4, "AmplifyAnalyticsCore": 4, "AmplifyStorageCore": 4, "AmplifyTestKit": 4,
        "AmplifyServiceLifecycle": 4, "AmplifyWebSocket": 4,
        "AmplifyFleet": 5,
        // The web-framework integrations sit beside the plugins: on the core and what plugins share.
        "AmplifyHummingbird": 5, "AmplifyVapor": 5,
        // A plugin built on another plugin: the Events Hub bridge on the API plugin's Events client.
        "AppSyncEventsHubBridgePlugin": 6,
        "AmplifyPlugins": 7,
        "ServerContexts": 8, "SessionBenchmark": 8, "FleetBenchmark": 8, "ModelBenchmark": 8, "GeneratedModels": 8, "AmplifyModelGen": 9,
        "ExampleServerSupport": 8,
        "HummingbirdServer": 9, "VaporServer": 9,
        // Test support: what the test targets share (below them, above everything they test).
        "LocalAuthTestSupport": 8, "HTTPServerTestSupport": 9, "GeneratedModelsGen1": 4, "GeneratedModelsGen2": 4,
    ]
    static let pluginLayer = 5
    static let topLayer = 8
    static let testLayer = 10

    struct Target {
        let name: String
        let kind: String
        let path: String
        let dependencies: Set<String>
    }

    /// The targets Package.swift declares: kind, name, path and dependency names (target names
    /// and product names alike).
    static func targets() throws -> [Target] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        guard let start = manifest.range(of: "targets: [") else { return [] }
        let body = String(manifest[start.upperBound...])
        let declaration = try NSRegularExpression(pattern: #"\.(target|testTarget|executableTarget|systemLibrary)\(\s*name:\s*"([^"]+)""#)
        let matches = declaration.matches(in: body, range: NSRange(body.startIndex..., in: body))
        return matches.enumerated().compactMap { index, match in
            guard let kindRange = Range(match.range(at: 1), in: body), let nameRange = Range(match.range(at: 2), in: body),
                let whole = Range(match.range, in: body)
            else { return nil }
            let end = index + 1 < matches.count ? Range(matches[index + 1].range, in: body)?.lowerBound ?? body.endIndex : body.endIndex
            let text = String(body[whole.upperBound..<end])
            let kind = String(body[kindRange])
            let name = String(body[nameRange])
            var dependencies = Set<String>()
            if let open = text.range(of: "dependencies: ["), let close = text[open.upperBound...].firstIndex(of: "]") {
                let list = String(text[open.upperBound..<close])
                // "Name", or .product(name: "Name", package: "…"): keep the names, drop the packages.
                let withoutPackages = list.replacingOccurrences(of: #"package:\s*"[^"]*""#, with: "", options: .regularExpression)
                let quoted = try? NSRegularExpression(pattern: #""([^"]+)""#)
                for item in quoted?.matches(in: withoutPackages, range: NSRange(withoutPackages.startIndex..., in: withoutPackages)) ?? [] {
                    if let range = Range(item.range(at: 1), in: withoutPackages) { dependencies.insert(String(withoutPackages[range])) }
                }
            }
            let explicitPath = (try? NSRegularExpression(pattern: #"path:\s*"([^"]+)""#))?
                .firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
                .flatMap { Range($0.range(at: 1), in: text) }.map { String(text[$0]) }
            let path = explicitPath ?? (kind == "testTarget" ? "Tests/\(name)" : "Sources/\(name)")
            return Target(name: name, kind: kind, path: path, dependencies: dependencies)
        }
    }

    /// The modules each Swift file of `target` imports.
    static func imports(of target: Target) -> Set<String> {
        let folder = root.appendingPathComponent(target.path)
        guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        var modules = Set<String>()
        for case let file as URL in files where file.pathExtension == "swift" {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                var words = line.split(separator: " ").map(String.init).drop { $0.hasPrefix("@") }
                guard words.first == "import" else { continue }
                words = words.dropFirst()
                if let module = words.first { modules.insert(module) }
            }
        }
        return modules
    }

    static func layer(of target: Target) -> Int? {
        if target.kind == "testTarget" { return testLayer }
        if target.kind == "systemLibrary"
            || target.name.hasPrefix("C") && target.name.first?.isUppercase == true
                && target.name.dropFirst().first?.isUppercase == true
        {
            return 0
        }
        if let known = layers[target.name] { return known }
        if target.path.hasPrefix("Plugins/") { return pluginLayer }
        if target.kind == "executableTarget" { return topLayer }
        return nil
    }

    @Test("Package.swift declares targets and every one has a layer")
    func everyTargetHasALayer() throws {
        let all = try Self.targets()
        #expect(all.count > 20)
        for target in all {
            #expect(Self.layer(of: target) != nil, "\(target.name) has no layer: add it to PackageLayoutTests.layers")
        }
    }

    @Test("every import of a package module is a direct dependency of the importing target")
    func importsAreDeclared() throws {
        let all = try Self.targets()
        let names = Set(all.map(\.name))
        for target in all where target.kind != "systemLibrary" {
            for module in Self.imports(of: target) where names.contains(module) && module != target.name {
                #expect(target.dependencies.contains(module), "\(target.name) imports \(module) but does not declare it in Package.swift")
            }
        }
    }

    @Test("every import points down the layer order; tests import no other test target")
    func importsPointDown() throws {
        let all = try Self.targets()
        let byName = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for target in all where target.kind != "systemLibrary" {
            guard let own = Self.layer(of: target) else { continue }
            for module in Self.imports(of: target) {
                guard let imported = byName[module], module != target.name, let below = Self.layer(of: imported) else { continue }
                #expect(below < own, "\(target.name) (layer \(own)) imports \(module) (layer \(below)), which is not below it")
            }
        }
    }

    @Test("only AmplifyEventLoop imports libuv")
    func onlyTheLoopImportsLibUV() throws {
        for target in try Self.targets() where target.kind != "systemLibrary" && target.name != "AmplifyEventLoop" {
            #expect(!Self.imports(of: target).contains("CLibUV"), "\(target.name) imports CLibUV")
        }
    }

    @Test("a package that depends on Amplify and its plugins, without the traits, resolves no web framework and no SwiftNIO")
    func traitsKeepFrameworksOut() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trait-consumer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Sources/Consumer"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
        // swift-tools-version:6.1
        import PackageDescription
        let package = Package(
            name: "Consumer",
            dependencies: [.package(path: "\(Self.root.path)")],
            targets: [
                .target(name: "Consumer", dependencies: [
                    .product(name: "Amplify", package: "main"), .product(name: "LocalAuthPlugin", package: "main"),
                    .product(name: "AWSCognitoAuthPlugin", package: "main"), .product(name: "AmplifyAuthCore", package: "main"),
                ])
            ]
        )
        """.replacingOccurrences(of: "package: \"main\"", with: "package: \"\(Self.root.lastPathComponent)\"")
            .write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try "import Amplify\n".write(to: folder.appendingPathComponent("Sources/Consumer/Consumer.swift"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "swift", "package", "--package-path", folder.path, "--scratch-path", folder.appendingPathComponent(".build").path, "resolve",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let log = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(log)")
        let checkouts = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(".build/checkouts").path)) ?? []
        #expect(checkouts.contains("swift-log"), "resolution did not happen: \(checkouts) \(log)")
        for framework in ["swift-nio", "hummingbird", "hummingbird-auth", "vapor", "async-http-client"] {
            #expect(!checkouts.contains(framework), "\(framework) was fetched without the traits: \(checkouts)")
        }
    }
}
