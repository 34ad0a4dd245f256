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
