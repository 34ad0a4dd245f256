/// A libuv handle owned by an ``EventLoop``: the loop closes every one still open when it shuts
/// down. Called only on the loop thread.
protocol LoopOwnedHandle: AnyObject {
    /// Closes the handle (its memory is freed in libuv's close callback). Loop thread only.
    func closeOnLoop()
}
