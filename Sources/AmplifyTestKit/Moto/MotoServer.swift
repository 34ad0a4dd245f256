import Amplify
import AmplifyConcurrency
import Foundation

/// A moto_server (the local AWS stand-in) of the test's own, on a free port on 127.0.0.1.
///
/// ``start()`` makes sure the venv with moto exists (running `scripts/install-test-tools.sh`
/// once if not), starts `moto_harness.py`, and returns once the server answers. ``seed(_:)``
/// creates buckets, user pools, identity pools and IAM keys with boto3; ``reset()`` empties it;
/// ``setStrictSignatures(_:)`` makes it verify every request's SigV4 signature. ``stop()`` (or
/// `deinit`) kills it by its PID; ``with(_:)`` stops it also when the test throws.
///
/// Calls block the calling thread until the harness answers; use it from tests, not from a loop.
public final class MotoServer: @unchecked Sendable {
    // @unchecked Sendable: the process and its pipes are used only under `lock`.
    /// The commands sent (a count, not an empty value: see `Locked`).
    private let lock = Locked(0)
    private let process: Process
    private let commands: FileHandle
    private let answers: LineReader
    private var stopped = false

    /// The server's port on 127.0.0.1.
    public let port: Int
    /// `http://127.0.0.1:<port>`, for endpoint overrides.
    public let endpoint: URL
    /// The region everything is seeded in.
    public let region = "us-east-1"

    private init(process: Process, commands: FileHandle, answers: LineReader, port: Int) throws {
        self.process = process
        self.commands = commands
        self.answers = answers
        self.port = port
        guard let endpoint = URL(string: "http://127.0.0.1:\(port)") else { throw MotoServerError("no URL for port \(port)") }
        self.endpoint = endpoint
    }

    deinit { stop() }

    /// Starts a server and waits until it answers, on a thread of its own (moto takes seconds to
    /// start, and a wait on one of the test pool's few threads stalls every other test).
    ///
    /// - Throws: ``MotoServerError`` when the venv cannot be made or the server does not start.
    public static func start() async throws -> MotoServer {
        try await offThePool { try startBlocking() }
    }

    private static func startBlocking() throws -> MotoServer {
        let python = try pythonExecutable()
        let process = Process()
        process.executableURL = python
        process.arguments = [packageRoot.appendingPathComponent("Sources/AmplifyTestKit/Moto/moto_harness.py").path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError =
            ProcessInfo.processInfo.environment["AMPLIFY_MOTO_LOG"].flatMap { FileHandle(forWritingAtPath: $0) } ?? FileHandle.nullDevice
        try process.runSerialized()
        let answers = LineReader(output.fileHandleForReading)
        guard let first = answers.nextLine(), let port = try? JSONDecoder().decode(JSONValue.self, from: Data(first.utf8))["port"]?.intValue else {
            ChildProcessStop.stop(process, signal: SIGKILL)
            throw MotoServerError("moto_server did not start (set AMPLIFY_MOTO_LOG=/path/to/file to see its output)")
        }
        return try MotoServer(process: process, commands: input.fileHandleForWriting, answers: answers, port: port)
    }

    /// Starts a server, runs `body` with it, and stops it, whether `body` returns or throws.
    /// - Throws: what ``start()`` or `body` throws.
    public static func with<T>(_ body: (MotoServer) async throws -> T) async throws -> T {
        let server = try await start()
        defer { server.stop() }
        return try await body(server)
    }

    /// Calls boto3's `method` of `service` with `arguments` (what an administrator does:
    /// `admin_delete_user`, `admin_user_global_sign_out`, ...) and returns its answer.
    /// - Throws: ``MotoServerError`` with boto3's message when moto refused.
    @discardableResult
    public func call(_ service: String, _ method: String, _ arguments: JSONValue = [:]) throws -> JSONValue {
        try send(["op": "call", "service": .string(service), "method": .string(method), "arguments": arguments])
    }

    /// Signs `username` in to the seeded pool with moto's admin flow and returns its
    /// `AuthenticationResult` (`IdToken`, `AccessToken`, `RefreshToken`): tokens for tests that
    /// need one without going through a plugin.
    /// - Throws: ``MotoServerError`` with boto3's message when moto refused.
    public func tokens(userPoolId: String, clientId: String, username: String, password: String) throws -> JSONValue {
        try send([
            "op": "tokens", "userPoolId": .string(userPoolId), "clientId": .string(clientId), "username": .string(username),
            "password": .string(password),
        ])
    }

    /// Creates what `spec` names (see `moto_harness.py`: `buckets`, `userPool`, `identityPool`,
    /// `iamUser`) and returns the ids moto gave them (`userPoolId`, `clientId`, `clientSecret`,
    /// `identityPoolId`, `accessKeyId`, `secretAccessKey`).
    /// - Throws: ``MotoServerError`` with boto3's message when moto refused.
    @discardableResult
    public func seed(_ spec: JSONValue) throws -> JSONValue {
        guard case .object(var command) = spec else { throw MotoServerError("a seed spec is a JSON object") }
        command["op"] = "seed"
        return try send(.object(command))
    }

    /// Deletes everything and turns strict signatures off.
    /// - Throws: ``MotoServerError`` when the server does not answer.
    public func reset() throws {
        try send(["op": "reset"])
    }

    /// With `on`, every later request must carry a valid SigV4 signature made with a key that
    /// ``seed(_:)`` created for an `iamUser` (moto answers 403 otherwise).
    /// - Throws: ``MotoServerError`` when the server does not answer.
    public func setStrictSignatures(_ on: Bool) throws {
        try send(["op": "strict", "on": .boolean(on)])
    }

    /// Kills the server by its PID and waits for it to be gone (once; later calls do nothing).
    public func stop() {
        lock.withLock { _ in
            guard !stopped else { return }
            stopped = true
            ChildProcessStop.stop(process, signal: SIGKILL)
            try? commands.close()
        }
    }

    @discardableResult
    private func send(_ command: JSONValue) throws -> JSONValue {
        try lock.withLock { sent throws(MotoServerError) -> JSONValue in
            guard !stopped else { throw MotoServerError("the server was stopped") }
            sent += 1
            guard let line = try? JSONEncoder().encode(command) else { throw MotoServerError("cannot encode \(command)") }
            do {
                try commands.write(contentsOf: line + Data("\n".utf8))
            } catch {
                throw MotoServerError("moto_server is gone: \(error)")
            }
            guard let answer = answers.nextLine(), let reply = try? JSONDecoder().decode(JSONValue.self, from: Data(answer.utf8)) else {
                throw MotoServerError("moto_server did not answer \(command)")
            }
            if let error = reply["error"]?.stringValue { throw MotoServerError(error) }
            return reply["ok"] ?? .null
        }
    }

    /// This package's root folder (three levels above this file).
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `$AMPLIFY_MOTO_PYTHON`, or the venv's python, made by `scripts/install-test-tools.sh`
    /// when missing.
    static func pythonExecutable() throws -> URL {
        if let python = ProcessInfo.processInfo.environment["AMPLIFY_MOTO_PYTHON"] { return URL(fileURLWithPath: python) }
        let venv = packageRoot.appendingPathComponent(".build/test-tools/venv")
        if !FileManager.default.fileExists(atPath: venv.appendingPathComponent(".complete").path) {
            let install = Process()
            install.executableURL = packageRoot.appendingPathComponent("scripts/install-test-tools.sh")
            install.standardInput = FileHandle.nullDevice
            install.standardOutput = FileHandle.nullDevice
            install.standardError = FileHandle.nullDevice
            try install.runSerialized()
            install.waitUntilExit()
            guard install.terminationStatus == 0 else {
                throw MotoServerError("scripts/install-test-tools.sh failed (exit \(install.terminationStatus)); run it by hand to see why")
            }
        }
        return venv.appendingPathComponent("bin/python")
    }
}

/// What went wrong starting or talking to the test's moto_server.
public struct MotoServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    init(_ description: String) { self.description = description }
}

/// Reads a pipe line by line (blocking).
final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()

    init(_ handle: FileHandle) { self.handle = handle }

    /// The next line without its newline, or `nil` at the end of the stream.
    func nextLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                return String(decoding: line, as: UTF8.self)
            }
            // `availableData` returns what the pipe holds now; `read(upToCount:)` would wait for
            // the whole count or the end of the stream.
            let chunk = handle.availableData
            guard !chunk.isEmpty else { return nil }
            buffer.append(chunk)
        }
    }
}
