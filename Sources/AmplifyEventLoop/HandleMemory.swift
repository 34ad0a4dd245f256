import CLibUV

/// Views any libuv handle as the `uv_handle_t` it begins with.
func baseHandle<Handle>(_ handle: UnsafeMutablePointer<Handle>) -> UnsafeMutablePointer<uv_handle_t> {
    UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_handle_t.self)
}

/// Closes `handle` and, in libuv's close callback, releases the owner retained in its `data`
/// field and frees the handle's memory. Loop thread only.
func closeAndFree<Handle>(_ handle: UnsafeMutablePointer<Handle>) {
    let base = baseHandle(handle)
    guard uv_is_closing(base) == 0 else { return }
    uv_close(base) { base in
        guard let base else { return }
        if let data = base.pointee.data { Unmanaged<AnyObject>.fromOpaque(data).release() }
        UnsafeMutableRawPointer(base).deallocate()
    }
}

/// Allocates a handle and initialises it with `initialize` (a `uv_*_init` call); frees the memory
/// again and throws if libuv refuses. Loop thread only (or before the loop runs).
func openHandle<Handle>(
    _ operation: String, _ initialize: (UnsafeMutablePointer<Handle>) -> Int32
) throws(EventLoopError) -> UnsafeMutablePointer<Handle> {
    let handle = UnsafeMutablePointer<Handle>.allocate(capacity: 1)
    let rc = initialize(handle)
    guard rc == 0 else {
        handle.deallocate()
        throw EventLoopError.libuv(operation: operation, code: rc, message: uvErrorMessage(rc))
    }
    return handle
}

/// Keeps `owner` alive in the handle's `data` field until ``closeAndFree(_:)`` releases it.
func retainOwner<Handle>(_ owner: AnyObject, in handle: UnsafeMutablePointer<Handle>) {
    baseHandle(handle).pointee.data = Unmanaged.passRetained(owner).toOpaque()
}
