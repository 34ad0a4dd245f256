import AmplifyConcurrency

/// Something that can be cancelled (amplify-swift's protocol).
public protocol Cancellable: Sendable {
    /// Cancels it; a second call does nothing.
    func cancel()
}

/// An asynchronous sequence that its producer feeds with ``send(_:)`` and ends with
/// ``finish()`` or ``fail(_:)`` (amplify-swift's type; `Amplify.API.subscribe(request:)` returns
/// one). ``cancel()``, or cancelling the task that iterates it, ends it and cancels its parent
/// (the subscription). Iterate it from one task.
public final class AmplifyAsyncThrowingSequence<Element: Sendable>: AsyncSequence, Cancellable {
    /// The iterator.
    public typealias Iterator = AsyncThrowingStream<Element, any Error>.Iterator

    private let stream: AsyncThrowingStream<Element, any Error>
    private let continuation: AsyncThrowingStream<Element, any Error>.Continuation
    private let parent = Locked<(any Cancellable)?>(nil)
    private let cancelled = Locked(false)

    /// A sequence; `parent` is cancelled when the sequence is.
    /// - Parameters:
    ///   - parent: what to cancel when the sequence is cancelled (set later with ``setParent(_:)``).
    ///   - bufferingPolicy: how many elements to keep while nobody reads (all, by default).
    public init(parent: (any Cancellable)? = nil, bufferingPolicy: AsyncThrowingStream<Element, any Error>.Continuation.BufferingPolicy = .unbounded)
    {
        (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self, throwing: (any Error).self, bufferingPolicy: bufferingPolicy)
        self.parent.withLock { $0 = parent }
        continuation.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.cancel() }
        }
    }

    /// Sets what ``cancel()`` cancels; cancels it at once if the sequence already was.
    public func setParent(_ parent: any Cancellable) {
        let already = cancelled.withLock { cancelled in
            if !cancelled { self.parent.withLock { $0 = parent } }
            return cancelled
        }
        if already { parent.cancel() }
    }

    /// Whether ``cancel()`` was called (or the iterating task was cancelled).
    public var isCancelled: Bool { cancelled.value }

    /// The iterator; call once.
    public func makeAsyncIterator() -> Iterator { stream.makeAsyncIterator() }

    /// Adds an element. Safe from any thread.
    public func send(_ element: Element) { continuation.yield(element) }

    /// Ends the sequence with `error`. Safe from any thread.
    public func fail(_ error: any Error) { continuation.finish(throwing: error) }

    /// Ends the sequence. Safe from any thread.
    public func finish() { continuation.finish() }

    /// Ends the sequence and cancels its parent. Safe from any thread; a second call does nothing.
    public func cancel() {
        let first = cancelled.withLock { cancelled in
            defer { cancelled = true }
            return !cancelled
        }
        guard first else { return }
        let owner = parent.withLock { parent in
            defer { parent = nil }
            return parent
        }
        owner?.cancel()
        continuation.finish()
    }
}
