import Amplify
import Foundation

/// A faithful re-creation of amplify-swift's default Hub dispatcher, the anchor we measure
/// against: `dispatch` adds an operation to a serial `OperationQueue`; the operation takes the
/// channel's listeners from a dictionary under a lock, and hands each listener call to
/// `DispatchQueue.global().async`. Listeners therefore run concurrently, in no set order.
final class AmplifyStyleHub: @unchecked Sendable {
    // @unchecked Sendable: `listeners` is read and written only under `lock`, as in the original.
    typealias Listener = @Sendable (HubPayload) -> Void

    private let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "HubDispatchQueue"
        queue.maxConcurrentOperationCount = 1
        return queue
    }()
    private let lock = NSLock()
    private var listeners: [UUID: (HubChannel, Listener)] = [:]

    @discardableResult
    func listen(to channel: HubChannel, listener: @escaping Listener) -> UUID {
        let id = UUID()
        lock.lock()
        listeners[id] = (channel, listener)
        lock.unlock()
        return id
    }

    func dispatch(to channel: HubChannel, payload: HubPayload) {
        queue.addOperation { [self] in
            lock.lock()
            let matching = listeners.values.filter { $0.0 == channel }.map(\.1)
            lock.unlock()
            for listener in matching {
                DispatchQueue.global().async { listener(payload) }
            }
        }
    }

    func removeAll() {
        lock.lock()
        listeners.removeAll()
        lock.unlock()
    }
}
