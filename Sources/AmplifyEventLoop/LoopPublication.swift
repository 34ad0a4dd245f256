import CAmplifyEventLoopShims
import Synchronization

extension EventLoop {
    /// Makes every store the calling thread made before this call visible to the loop thread for
    /// everything the loop thread does after this call returns, even loads the loop thread makes
    /// with relaxed ordering.
    ///
    /// It lets the loop's hot path read a flag with a plain load while another thread can still
    /// be sure, when this returns, that the loop sees the flag. It uses Linux's
    /// `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)` (a few microseconds); where the kernel
    /// refuses it, it waits for the loop to run one empty turn instead. On the loop thread it
    /// returns at once. Never call it from code the loop must run for it to return.
    public func publishToLoopThread() {
        if inEventLoop { return }
        if MembarrierSupport.available, c_amplify_membarrier() == 0 { return }
        // Fallback: the loop takes the queue's lock before running the empty job, which orders
        // our earlier stores before all its later loads.
        _ = try? submitAndWait { () }
    }
}

/// Whether the kernel lets this process use private expedited membarriers (registered once).
enum MembarrierSupport {
    static let available: Bool = c_amplify_membarrier_register() == 0
}
