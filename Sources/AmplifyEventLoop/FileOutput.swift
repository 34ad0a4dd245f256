#if canImport(Glibc)
    import Glibc
#endif

/// Unbuffered writes to a standard stream, safe from any thread (one `write(2)` per call).
enum FileOutput {
    case standardError

    func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
