import CLagmonLinux
import Glibc

/// A POSIX semaphore (sem_t) that wakes a worker thread: posted from any thread, waited on by
/// one. Owns its memory; sem_t is made to be shared between threads, so the type is too.
/// Noncopyable, so it lives inline in its owner (no allocation of its own beyond the sem_t).
struct Semaphore: ~Copyable, @unchecked Sendable {  // sem_t is thread-safe; this holds its address
    private let semaphore: UnsafeMutablePointer<sem_t>

    /// A semaphore at zero.
    init() {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Adds one, waking a waiter.
    func post() { sem_post(semaphore) }

    /// Takes one, sleeping until there is one (EINTR retried).
    func wait() { while sem_wait(semaphore) != 0 && errno == EINTR {} }

    /// Takes one, sleeping at most until `deadlineNs` (absolute CLOCK_MONOTONIC); false at the
    /// deadline.
    @discardableResult
    func wait(untilMonotonicNs deadlineNs: UInt64) -> Bool {
        lagmon_sem_wait_until_monotonic(semaphore, deadlineNs) == 0
    }

    /// Takes one if there is one, without sleeping.
    func tryWait() -> Bool { sem_trywait(semaphore) == 0 }
}
