import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starts one of the test kit's Python stand-ins (the AppSync and hosted-UI servers): the script
/// with the venv's python, `--port 0 --exit-with-stdin` and `arguments`, its standard error to the
/// file `$<logVariable>` names (else nowhere), and waits for its `READY <port>` line.
enum PythonStandIn {
    struct Started {
        let process: Process
        /// Its standard input: closing it ends the server.
        let input: FileHandle
        let port: Int
    }

    /// - Throws: the venv's errors, or `failure(message)` when the script does not say `READY`
    ///   (it is then killed).
    static func start(script: String, arguments: [String], logVariable: String, failure: (String) -> any Error) throws -> Started {
        let process = Process()
        process.executableURL = try MotoServer.pythonExecutable()
        process.arguments = [MotoServer.packageRoot.appendingPathComponent(script).path, "--port", "0", "--exit-with-stdin"] + arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError =
            ProcessInfo.processInfo.environment[logVariable].flatMap { path in
                _ = FileManager.default.createFile(atPath: path, contents: nil)
                return FileHandle(forWritingAtPath: path)
            } ?? FileHandle.nullDevice
        try process.runSerialized()
        let lines = LineReader(output.fileHandleForReading)
        guard let line = lines.nextLine(), line.hasPrefix("READY "), let port = Int(line.dropFirst(6)) else {
            ChildProcessStop.stop(process, signal: SIGKILL)
            let name = (script as NSString).lastPathComponent
            throw failure("\(name) did not start (set \(logVariable)=/path/to/file to see its output)")
        }
        return Started(process: process, input: input.fileHandleForWriting, port: port)
    }
}
