import CAmplifyEventLoopShims

/// Names threads so they can be told apart in `top -H`, debuggers and `/proc/self/task`.
public enum ThreadName {
    /// Names the calling thread (Linux keeps the first 15 bytes).
    public static func setCurrent(_ name: String) {
        c_amplify_set_thread_name(String(decoding: name.utf8.prefix(15), as: UTF8.self))
    }
}
