import Foundation

#if AMPLIFY_FUZZING
    /// libFuzzer's entry (built by `scripts/fuzz.sh` with `-sanitize=fuzzer,address` and
    /// `-D AMPLIFY_FUZZING`): runs the harness named by `AMPLIFY_FUZZ_TARGET` on each input.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func amplifyFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        FuzzEntry.harness(Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    /// SwiftPM gives every executable a Swift entry point of its own, so libFuzzer's `main` is not
    /// the one that runs: this one hands the command line to libFuzzer's driver
    /// (`LLVMFuzzerRunDriver`, found with `dlsym`: Swift executables export their symbols).
    @main
    struct AmplifyFuzzMain {
        typealias Driver =
            @convention(c) (
                UnsafeMutablePointer<CInt>, UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
            ) -> CInt

        static func main() {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "LLVMFuzzerRunDriver") else {
                fatalError("libFuzzer's LLVMFuzzerRunDriver is not linked in: build with -sanitize=fuzzer")
            }
            let driver = unsafeBitCast(symbol, to: Driver.self)
            var argc = CommandLine.argc
            var argv = Optional(CommandLine.unsafeArgv)
            exit(driver(&argc, &argv, amplifyFuzzTestOneInput))
        }
    }

    enum FuzzEntry {
        static let harness: @Sendable ([UInt8]) -> Void = {
            let name = ProcessInfo.processInfo.environment["AMPLIFY_FUZZ_TARGET"] ?? ""
            guard let harness = FuzzHarnesses.all[name] else {
                fatalError("Set AMPLIFY_FUZZ_TARGET to one of: \(FuzzHarnesses.all.keys.sorted().joined(separator: ", ")) (got '\(name)').")
            }
            return harness
        }()
    }
#else
    /// Without the fuzzer: `AmplifyFuzz <target> <file or folder>...` runs each input through the
    /// harness once (a crash a fuzzer found reproduces under the debugger this way).
    @main
    struct AmplifyFuzzReplay {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let harness = FuzzHarnesses.all[name] else {
                print("usage: AmplifyFuzz <\(FuzzHarnesses.all.keys.sorted().joined(separator: "|"))> <file or folder>...")
                exit(2)
            }
            var count = 0
            for path in arguments.dropFirst() {
                for file in FuzzCorpus.files(at: URL(fileURLWithPath: path)) {
                    guard let bytes = FileManager.default.contents(atPath: file.path) else { continue }
                    harness(Array(bytes))
                    count += 1
                }
            }
            print("\(name): \(count) inputs, no crash")
        }
    }
#endif

/// The files of a corpus folder (or the file itself), in name order.
public enum FuzzCorpus {
    /// Every regular file at `url` (a folder, read one level deep) or `url` itself.
    public static func files(at url: URL) -> [URL] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { return [] }
        guard isFolder.boolValue else { return [url] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.sorted().map { url.appendingPathComponent($0) }.filter {
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0.path, isDirectory: &folder) && !folder.boolValue
        }
    }
}
