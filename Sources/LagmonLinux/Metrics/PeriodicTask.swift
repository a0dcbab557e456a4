import Synchronization

/// Runs a closure every `intervalNs` on a thread of its own until stopped (live metrics keep
/// their totals current between scrapes with it, so a final push has them even unscraped).
public final class PeriodicTask: Sendable {
    private let wakeup = Semaphore()
    private let stopping = Atomic<Bool>(false)
    private let thread = WorkerThread()

    public init() {}

    deinit { stop() }

    /// Starts calling `body` every `intervalNs`.
    public func start(
        intervalNs: UInt64, name: String, _ body: @escaping @Sendable () -> Void
    ) throws(SystemError) {
        try thread.start(name: name) { [self] in
            while !stopping.load(ordering: .sequentiallyConsistent) {
                wakeup.wait(untilMonotonicNs: MonotonicClock.nowNs() + intervalNs)
                if stopping.load(ordering: .sequentiallyConsistent) { break }
                body()
            }
        }
    }

    /// Stops and waits for the thread (a call of `body` in progress finishes first).
    public func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeup.post()
        thread.join()
    }
}
