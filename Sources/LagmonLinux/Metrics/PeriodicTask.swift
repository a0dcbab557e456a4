import CLagmonLinux
import Glibc
import Synchronization

/// Runs a closure every `intervalNs` on a thread of its own until stopped (live metrics keep
/// their totals current between scrapes with it, so a final push has them even unscraped).
public final class PeriodicTask: @unchecked Sendable {
    private let wakeup: UnsafeMutablePointer<sem_t>
    private let stopping = Atomic<Bool>(false)
    private var thread: JoinableThread?

    public init() {
        wakeup = .allocate(capacity: 1)
        sem_init(wakeup, 0, 0)
    }

    deinit {
        stop()
        sem_destroy(wakeup)
        wakeup.deallocate()
    }

    /// Starts calling `body` every `intervalNs`.
    public func start(
        intervalNs: UInt64, name: String, _ body: @escaping @Sendable () -> Void
    ) throws(SystemError) {
        thread = try JoinableThread(name: name) { [self] in
            while !stopping.load(ordering: .sequentiallyConsistent) {
                _ = lagmon_sem_wait_until_monotonic(wakeup, MonotonicClock.nowNs() + intervalNs)
                if stopping.load(ordering: .sequentiallyConsistent) { break }
                body()
            }
        }
    }

    /// Stops and waits for the thread (a call of `body` in progress finishes first).
    public func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        sem_post(wakeup)
        thread?.join()
        thread = nil
    }
}
