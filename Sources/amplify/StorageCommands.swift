import AmplifyPlugins
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `amplify storage …`: put, get, list, remove and URL of objects through the configured
/// Storage plugin.
enum StorageCommands {
    static var all: [any CLICommand] {
        [
            ActionCommand(
                path: ["storage", "put"], summary: "upload a file (or standard input)", usage: "KEY FILE|-",
                details: "Uploads FILE (or standard input for -) as KEY, streamed, with a progress bar when standard error is a terminal.",
                positional: ["KEY", "FILE"]
            ) { arguments, _ in
                let key = arguments.positional[0]
                var source = arguments.positional[1]
                var temporary: String?
                if source == "-" {
                    temporary = try spoolStandardInput()
                    source = temporary ?? source
                }
                defer { temporary.map { try? FileManager.default.removeItem(atPath: $0) } }
                guard FileManager.default.fileExists(atPath: source) else {
                    throw StorageError.localFileNotFound("There is no file \(source).", "Check the path, or use - to read standard input.")
                }
                let task = Amplify.Storage.uploadFile(path: .fromString(key), local: URL(fileURLWithPath: source))
                let progress = ProgressBar(label: "put \(key)")
                for await update in task.progress { progress.show(update) }
                _ = try await task.value
                progress.finish()
                let size = (try? FileManager.default.attributesOfItem(atPath: source)[.size] as? Int) ?? 0
                return CommandResult(text: "Uploaded \(key) (\(size) bytes).", json: ["key": .string(key), "bytes": .number(Double(size))])
            },
            ActionCommand(
                path: ["storage", "get"], summary: "download an object", usage: "KEY [FILE|-]",
                details: "Downloads KEY into FILE (default: the key's last name in the working directory), or to standard output for -.",
                positional: ["KEY"], acceptsMorePositional: true
            ) { arguments, options in
                let key = arguments.positional[0]
                // The key's last name, split on the byte '/' as the store splits it.
                let lastName = key.utf8.split(separator: UInt8(ascii: "/")).last.map { String(decoding: $0, as: UTF8.self) } ?? key
                let destination = arguments.positional.count > 1 ? arguments.positional[1] : lastName
                guard arguments.positional.count <= 2 else { throw UsageError("storage get takes KEY and at most one FILE.") }
                let progress = ProgressBar(label: "get \(key)")
                if destination == "-" {
                    let task = Amplify.Storage.downloadData(path: .fromString(key))
                    for await update in task.progress { progress.show(update) }
                    let data = try await task.value
                    progress.finish()
                    FileHandle.standardOutput.write(data)
                    return CommandResult(text: "", json: options.json ? ["key": .string(key), "bytes": .number(Double(data.count))] : .null)
                }
                let task = Amplify.Storage.downloadFile(path: .fromString(key), local: URL(fileURLWithPath: destination))
                for await update in task.progress { progress.show(update) }
                try await task.value
                progress.finish()
                let size = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
                return CommandResult(text: "Downloaded \(key) to \(destination) (\(size) bytes).", json: ["key": .string(key), "file": .string(destination), "bytes": .number(Double(size))])
            },
            ActionCommand(
                path: ["storage", "ls"], summary: "list objects", usage: "[PREFIX]",
                details: "Lists every object whose key starts with PREFIX (all objects without one): size and key per line.",
                acceptsMorePositional: true
            ) { arguments, _ in
                guard arguments.positional.count <= 1 else { throw UsageError("storage ls takes at most one PREFIX.") }
                let prefix = arguments.positional.first ?? ""
                var items: [StorageListResult.Item] = []
                var token: String?
                repeat {
                    let page = try await Amplify.Storage.list(path: .fromString(prefix), options: .init(nextToken: token))
                    items += page.items
                    token = page.nextToken
                } while token != nil
                return CommandResult(
                    text: items.map { String(format: "%12d  %@", $0.size ?? 0, $0.path) }.joined(separator: "\n"),
                    json: .array(items.map { ["path": .string($0.path), "size": .number(Double($0.size ?? 0))] }))
            },
            ActionCommand(path: ["storage", "rm"], summary: "remove an object", usage: "KEY", details: "Removes KEY.", positional: ["KEY"]) { arguments, _ in
                let key = try await Amplify.Storage.remove(path: .fromString(arguments.positional[0]))
                return CommandResult(text: "Removed \(key).", json: ["key": .string(key)])
            },
            ActionCommand(
                path: ["storage", "url"], summary: "a URL for an object", usage: "KEY [--expires SECONDS]",
                details: "Prints a URL for KEY: a presigned URL valid for SECONDS (default 18000) from S3, a file:// URL from the local plugin.",
                positional: ["KEY"], valueOptions: ["--expires"]
            ) { arguments, _ in
                let expiresText = arguments.values["--expires"] ?? "18000"
                guard let expires = Int(expiresText), (1...604_800).contains(expires) else {
                    throw UsageError("--expires takes 1 to 604800 seconds; got '\(expiresText)'.")
                }
                let url = try await Amplify.Storage.getURL(path: .fromString(arguments.positional[0]), options: .init(expires: expires))
                return CommandResult(text: url.absoluteString, json: ["url": .string(url.absoluteString)])
            },
        ]
    }

    /// Copies standard input into a temporary file (so it can be streamed like any file).
    static func spoolStandardInput() throws -> String {
        let path = NSTemporaryDirectory() + "amplify-stdin-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw StorageError.localFileNotFound("Cannot create a temporary file for standard input.", "Check that the temporary folder is writable.")
        }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? output.close() }
        while true {
            let chunk = FileHandle.standardInput.availableData
            if chunk.isEmpty { break }
            try output.write(contentsOf: chunk)
        }
        return path
    }
}

/// A progress bar on standard error, drawn only when standard error is a terminal.
final class ProgressBar {
    private let label: String
    private let enabled = isatty(STDERR_FILENO) == 1
    private var drawn = false

    init(label: String) { self.label = label }

    func show(_ progress: StorageTransferProgress) {
        guard enabled else { return }
        let width = 30
        let fraction = progress.fractionCompleted.isFinite ? min(1, max(0, progress.fractionCompleted)) : 0
        let filled = Int(fraction * Double(width))
        let mebibytes = Double(progress.completedBytes) / 1_048_576
        let total = progress.totalBytes.map { String(format: "%.1f", Double($0) / 1_048_576) } ?? "?"
        let line = "\r\(label) [\(String(repeating: "#", count: filled))\(String(repeating: " ", count: width - filled))] \(Int(fraction * 100))% \(String(format: "%.1f", mebibytes))/\(total) MiB"
        FileHandle.standardError.write(Data(line.utf8))
        drawn = true
    }

    func finish() {
        if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
