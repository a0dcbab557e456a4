/// What the memory around a futex word looked like: which glibc (x86_64) lock it fits, if any.
/// A guess from the bytes alone; the waiter's stack confirms it when the report is built
/// (`LockWaitAnalyzer`).
public enum LockLayout: String, Codable, Sendable, Equatable {
    /// A `pthread_mutex_t` of type `PTHREAD_MUTEX_NORMAL` (the default; also `NSLock` here).
    case normalMutex
    /// A `pthread_mutex_t` of type `PTHREAD_MUTEX_RECURSIVE` (`NSRecursiveLock`).
    case recursiveMutex
    /// A `pthread_mutex_t` of type `PTHREAD_MUTEX_ERRORCHECK`.
    case errorCheckMutex
    /// A `pthread_mutex_t` of type `PTHREAD_MUTEX_ADAPTIVE_NP`.
    case adaptiveMutex
    /// A priority-inheritance lock (`FUTEX_LOCK_PI`): the futex word itself holds the owner's
    /// tid. Swift's `Synchronization.Mutex` on Linux and PI pthread mutexes.
    case priorityInheritance
    /// A `pthread_rwlock_t` held by a writer (`__cur_writer` names it).
    case rwlockWriter
    /// A `pthread_rwlock_t` held by readers: no owner is recorded, only their number.
    case rwlockReaders
    /// None of the above: a condition variable, a semaphore, a hand-made futex.
    case unrecognized
}
