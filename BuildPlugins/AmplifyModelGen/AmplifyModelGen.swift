import Foundation
import PackagePlugin

/// Regenerates a target's Swift models from the `amplify_outputs.json` in its folder on every
/// build that changes it: `amplify codegen models` as a build command, so the models always match
/// the backend. Add `plugins: [.plugin(name: "AmplifyModelGen", package: "amplify-linux")]` to the
/// target and put the backend's `amplify_outputs.json` in its folder (excluded from its sources).
@main
struct AmplifyModelGen: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let outputs = target.directoryURL.appending(path: "amplify_outputs.json")
        guard FileManager.default.fileExists(atPath: outputs.path()) else {
            Diagnostics.error(
                "AmplifyModelGen: target \(target.name) has no amplify_outputs.json in \(target.directoryURL.path()); put the backend's outputs there."
            )
            return []
        }
        let folder = context.pluginWorkDirectoryURL.appending(path: "Models")
        let names = try Self.fileNames(in: outputs)
        return [
            .buildCommand(
                displayName: "Generating \(target.name)'s models from amplify_outputs.json",
                executable: try context.tool(named: "amplify").url,
                arguments: ["codegen", "models", outputs.path(), "--output", folder.path()],
                inputFiles: [outputs],
                outputFiles: names.map { folder.appending(path: $0) })
        ]
    }

    /// The files `amplify codegen models` writes for the introspection in `outputs`: a build
    /// command names its outputs before it runs.
    static func fileNames(in outputs: URL) throws -> [String] {
        let data = try Data(contentsOf: outputs)
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [] }
        let introspection = ((root["data"] as? [String: Any])?["model_introspection"] as? [String: Any]) ?? root
        var names: [String] = []
        for (key, value) in (introspection["models"] as? [String: Any]) ?? [:] {
            let name = ((value as? [String: Any])?["name"] as? String) ?? key
            names += ["\(name).swift", "\(name)+Schema.swift"]
        }
        for (key, value) in (introspection["enums"] as? [String: Any]) ?? [:] {
            names.append("\(((value as? [String: Any])?["name"] as? String) ?? key).swift")
        }
        for (key, value) in (introspection["nonModels"] as? [String: Any]) ?? [:] {
            let name = ((value as? [String: Any])?["name"] as? String) ?? key
            names += ["\(name).swift", "\(name)+Schema.swift"]
        }
        return names.isEmpty ? [] : names + ["AmplifyModels.swift"]
    }
}
