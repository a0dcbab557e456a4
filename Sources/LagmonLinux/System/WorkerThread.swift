import Synchronization

/// The thread a worker starts in `start()` and joins in `stop()`, which may be called from other
/// threads than `start()`: a `JoinableThread` set once, under a lock.
final class WorkerThread: Sendable {
    private let thread = Mutex<JoinableThread?>(nil)

    init() {}

    /// Starts `body` on a thread named `name`.
    func start(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
        let started = try JoinableThread(name: name, body)
        thread.withLock { $0 = started }
    }

    /// Whether `start` succeeded.
    var isStarted: Bool { thread.withLock { $0 != nil } }

    /// Waits for the thread to return (at once if it never started).
    func join() { thread.withLock { $0 }?.join() }

    /// Waits at most `timeoutNs` for the thread to return: true once it has (or it never
    /// started).
    func join(withinNs timeoutNs: UInt64) -> Bool { thread.withLock { $0 }?.join(withinNs: timeoutNs) ?? true }
}
