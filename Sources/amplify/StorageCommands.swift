import AmplifyPlugins
import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `amplify storage …`: put, get, list, remove and URL of objects through the configured
/// Storage plugin.
struct StorageGroup: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "storage", abstract: "Objects in the bucket or the local folder.",
        subcommands: [
            StorageCommands.Put.self, StorageCommands.Get.self, StorageCommands.List.self, StorageCommands.Remove.self,
            StorageCommands.URLCommand.self,
        ])
}

/// `--bucket NAME`: the bucket of `storage.buckets` a command acts on.
struct BucketOption: ParsableArguments {
    @Option(help: ArgumentHelp("A bucket of the configuration's storage.buckets, by name (default: the default bucket).", valueName: "name"))
    var bucket: String?

    /// The bucket the options name, if any.
    var selected: OutputsStorageBucket? { bucket.map { OutputsStorageBucket.fromOutputs(name: $0) } }
}

/// The `amplify storage` commands.
enum StorageCommands {
    struct Put: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "put", abstract: "Upload a file (or standard input).",
            discussion: "Uploads FILE (or standard input for -) as KEY, streamed, with a progress bar when standard error is a terminal.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The object's key (public/photos/cat.jpg).", valueName: "key")) var key: String
        @Argument(help: ArgumentHelp("The file to upload, or - for standard input.", valueName: "file")) var file: String
        @OptionGroup var bucket: BucketOption

        func execute() async throws -> CommandResult {
            var source = file
            var temporary: String?
            if source == "-" {
                temporary = try spoolStandardInput()
                source = temporary ?? source
            }
            defer { temporary.map { try? FileManager.default.removeItem(atPath: $0) } }
            guard FileManager.default.fileExists(atPath: source) else {
                throw StorageError.localFileNotFound("There is no file \(source).", "Check the path, or use - to read standard input.")
            }
            let options = bucket.selected.map { StorageUploadFileRequest.Options(bucket: $0) }
            let task = Amplify.Storage.uploadFile(path: .fromString(key), local: URL(fileURLWithPath: source), options: options)
            let progress = ProgressBar(label: "put \(key)")
            for await update in task.progress { progress.show(update) }
            _ = try await task.value
            progress.finish()
            let size = (try? FileManager.default.attributesOfItem(atPath: source)[.size] as? Int) ?? 0
            return CommandResult(text: "Uploaded \(key) (\(size) bytes).", json: ["key": .string(key), "bytes": .number(Double(size))])
        }
    }

    struct Get: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "Download an object.",
            discussion: "Downloads KEY into FILE (default: the key's last name in the working directory), or to standard output for -.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The object's key.", valueName: "key")) var key: String
        @Argument(help: ArgumentHelp("Where to write it, or - for standard output.", valueName: "file")) var file: String?
        @OptionGroup var bucket: BucketOption

        func execute() async throws -> CommandResult {
            // The key's last name, split on the byte '/' as the store splits it.
            let lastName = key.utf8.split(separator: UInt8(ascii: "/")).last.map { String(decoding: $0, as: UTF8.self) } ?? key
            let destination = file ?? lastName
            let progress = ProgressBar(label: "get \(key)")
            let options = bucket.selected.map { StoragePluginOptions(bucket: $0) }
            if destination == "-" {
                let task = Amplify.Storage.downloadData(path: .fromString(key), options: options)
                for await update in task.progress { progress.show(update) }
                let data = try await task.value
                progress.finish()
                FileHandle.standardOutput.write(data)
                return CommandResult(text: "", json: global.json ? ["key": .string(key), "bytes": .number(Double(data.count))] : .null)
            }
            let task = Amplify.Storage.downloadFile(path: .fromString(key), local: URL(fileURLWithPath: destination), options: options)
            for await update in task.progress { progress.show(update) }
            try await task.value
            progress.finish()
            let size = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
            return CommandResult(
                text: "Downloaded \(key) to \(destination) (\(size) bytes).",
                json: ["key": .string(key), "file": .string(destination), "bytes": .number(Double(size))])
        }
    }

    struct List: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls", abstract: "List objects.",
            discussion: "Lists every object whose key starts with PREFIX (all objects without one): size and key per line.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("Only keys that start with this.", valueName: "prefix")) var prefix: String?
        @OptionGroup var bucket: BucketOption

        func execute() async throws -> CommandResult {
            var items: [StorageListResult.Item] = []
            var token: String?
            repeat {
                let options = bucket.selected.map { StorageListRequest.Options(bucket: $0, nextToken: token) } ?? .init(nextToken: token)
                let page = try await Amplify.Storage.list(path: .fromString(prefix ?? ""), options: options)
                items += page.items
                token = page.nextToken
            } while token != nil
            return CommandResult(
                text: items.map { String(format: "%12d  %@", $0.size ?? 0, $0.path) }.joined(separator: "\n"),
                json: .array(items.map { ["path": .string($0.path), "size": .number(Double($0.size ?? 0))] }))
        }
    }

    struct Remove: AmplifyCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove an object.", discussion: "Removes KEY.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The object's key.", valueName: "key")) var key: String
        @OptionGroup var bucket: BucketOption

        func execute() async throws -> CommandResult {
            let removed = try await Amplify.Storage.remove(path: .fromString(key), options: bucket.selected.map { StoragePluginOptions(bucket: $0) })
            return CommandResult(text: "Removed \(removed).", json: ["key": .string(removed)])
        }
    }

    struct URLCommand: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "url", abstract: "A URL for an object.",
            discussion: """
                Prints a URL for KEY: a presigned URL valid for SECONDS (default 18000) from S3, a file:// URL from the local plugin. \
                With --put, a presigned URL that uploads KEY with an HTTP PUT (S3 only); with --check, only for an object that exists.
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The object's key.", valueName: "key")) var key: String
        @Option(help: ArgumentHelp("How long a presigned URL is valid, 1 to 604800 seconds.", valueName: "seconds")) var expires = "18000"
        @Flag(help: "A URL that uploads the object (HTTP PUT) instead of one that downloads it.") var put = false
        @Flag(help: "Fail unless the object exists (download URLs).") var check = false
        @OptionGroup var bucket: BucketOption

        func validate() throws {
            guard let seconds = Int(expires), (1...604_800).contains(seconds) else {
                throw ValidationError("--expires takes 1 to 604800 seconds; got '\(expires)'.")
            }
        }

        func execute() async throws -> CommandResult {
            let seconds = Int(expires) ?? 18_000
            let urlOptions = AWSStorageGetURLOptions(validateObjectExistence: check, method: put ? .put : .get)
            let options =
                bucket.selected.map { StorageGetURLRequest.Options(expires: seconds, bucket: $0, pluginOptions: urlOptions) }
                ?? StorageGetURLRequest.Options(expires: seconds, pluginOptions: urlOptions)
            let url = try await Amplify.Storage.getURL(path: .fromString(key), options: options)
            return CommandResult(text: url.absoluteString, json: ["url": .string(url.absoluteString)])
        }
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
        let line =
            "\r\(label) [\(String(repeating: "#", count: filled))\(String(repeating: " ", count: width - filled))] \(Int(fraction * 100))% \(String(format: "%.1f", mebibytes))/\(total) MiB"
        FileHandle.standardError.write(Data(line.utf8))
        drawn = true
    }

    func finish() {
        if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
