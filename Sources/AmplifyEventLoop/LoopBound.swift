/// A value that is touched only on one event loop's thread, and so may be handed across
/// threads (captured by a `loop.execute` closure or a loop callback) although it is not
/// `Sendable` itself: SwiftNIO's `NIOLoopBound`, for this package's loop.
///
/// The value may be made on any thread and handed to the loop; from then on, reading or changing
/// ``value`` off the loop's thread is a programming error, which debug builds stop at (an
/// `assert`); release builds check nothing and cost nothing.
///
/// ```swift
/// let link = LoopBound(Connection(), loop: loop)
/// try loop.execute { link.value.start() }
/// ```
public final class LoopBound<Value>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is read and written only on `loop`'s thread (asserted in
    // debug builds); the one exception is the initializer, which hands the value over.

    /// The loop whose thread alone may touch ``value``.
    public let loop: EventLoop
    private var stored: Value

    /// Binds `value` to `loop`. Any thread; whoever made `value` must not touch it afterwards.
    public init(_ value: Value, loop: EventLoop) {
        self.loop = loop
        stored = value
    }

    /// The value. Loop thread only (checked in debug builds).
    public var value: Value {
        get {
            assert(loop.inEventLoop, "LoopBound<\(Value.self)> read off its loop's thread (\(loop.name))")
            return stored
        }
        set {
            assert(loop.inEventLoop, "LoopBound<\(Value.self)> changed off its loop's thread (\(loop.name))")
            stored = newValue
        }
    }
}
