/// Where a loop's thread sat in uninterruptible sleep (`D`) during a stall diagnosed `io`, from
/// /proc alone: such a thread cannot be stopped (no signal or ptrace stop reaches it until it
/// wakes), so its stack often could not be sampled at all.
public struct UninterruptibleReport: Codable, Sendable, Equatable {
    /// Samples that found the thread in `D`.
    public var samples: Int
    /// Of those, the ones whose stack could not be taken (the thread would not stop): /proc only.
    public var withoutStack: Int
    /// The system call it was in most often (`read`, `fsync`, `vfork`); absent when unreadable.
    public var syscall: String?
    /// That call's descriptor, when it takes one.
    public var fd: Int64?
    /// What the descriptor designates (`/proc/PID/fd/N`): a path, `socket:[…]`, `pipe:[…]`.
    public var file: String?
    /// The kernel function it slept in (`/proc/…/wchan`), most often.
    public var wchan: String?
    /// The kernel stack seen most often, innermost first (`/proc/…/stack`, root only); absent
    /// when unreadable.
    public var kernelStack: [String]?

    public init(samples: Int, withoutStack: Int) {
        self.samples = samples
        self.withoutStack = withoutStack
    }
}
