#if canImport(Glibc)
    import Glibc
#endif

/// The name this machine gives the devices its sign-ins make tracked (amplify-swift uses the
/// phone's name; a server has its host name).
public enum DeviceHost {
    /// This machine's host name (`gethostname`: no DNS lookup, which could block), or
    /// `localhost` when it has none.
    public static var name: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }
}
