import AmplifyCodegen
import ArgumentParser
import Foundation

struct CodegenGroup: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "codegen", abstract: "Generate code from the backend's outputs.", subcommands: [CodegenModelsCommand.self])
}

/// `amplify codegen models`: the Swift models the Amplify CLI generates, from the model
/// introspection in `amplify_outputs.json`, with no Node.
struct CodegenModelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models", abstract: "Write Swift models from amplify_outputs.json.",
        discussion: """
            Reads the model introspection of a Gen 2 amplify_outputs.json (data.model_introspection), or \
            an introspection file itself, and writes the files `npx ampx generate graphql-client-code \
            --format modelgen --model-target swift` writes: X.swift and X+Schema.swift per model, one \
            file per enum, X.swift and X+Schema.swift per non-model type, and AmplifyModels.swift. \
            Files are only rewritten when their text changes. Exits 1 when the file has no \
            introspection or it is malformed, saying where.
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The outputs or introspection file (the same as --config; default: amplify_outputs.json).", valueName: "file"))
    var file: String?
    @Option(help: ArgumentHelp("The folder to write to (made if missing).", valueName: "dir")) var output = "AmplifyModels"

    func run() async throws {
        let path = file ?? global.configPath ?? "amplify_outputs.json"
        do {
            let written = try Self.generate(from: path, into: output)
            if global.json {
                let names = written.map { "\"\($0)\"" }.joined(separator: ",")
                print("{\"output\":\"\(output)\",\"written\":[\(names)]}")
            } else {
                print(
                    "Wrote \(written.count) file(s) to \(output)"
                        + (written.isEmpty ? " (all were up to date)." : ": \(written.joined(separator: ", "))."))
            }
        } catch let error as CodegenError {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            throw ExitCode(CommandLineTool.ExitCodes.failure)
        }
    }

    /// Writes the models of the introspection in `path` into `folder`; returns the names of the
    /// files whose text changed.
    /// - Throws: ``CodegenError`` when the file cannot be read, is not JSON, or has no introspection.
    static func generate(from path: String, into folder: String) throws -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CodegenError("Cannot read '\(path)'. Pass the amplify_outputs.json (or introspection) file to generate from.")
        }
        let files = try ModelCodegen.files(from: Array(data))
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw CodegenError("Cannot make the folder '\(folder)': \(error.localizedDescription)")
        }
        var written: [String] = []
        for (name, text) in files {
            let target = (folder as NSString).appendingPathComponent(name)
            if FileManager.default.contents(atPath: target) == Data(text.utf8) { continue }
            guard FileManager.default.createFile(atPath: target, contents: Data(text.utf8)) else {
                throw CodegenError("Cannot write '\(target)'.")
            }
            written.append(name)
        }
        return written
    }
}
