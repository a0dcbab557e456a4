import CLagmonLinux
import Glibc

/// The threads that observe the target on a deadline — the watchdogs, the /proc probe's
/// watcher, the stack sampler — run ahead of ordinary load. Each wakes for microseconds every few
/// milliseconds, so the priority costs nobody CPU; without it, on a busy machine (every core taken
/// by builds, or by `make test-loaded`'s spinners), they waited for a CPU longer than whole
/// stalls: a stall's samples were taken after it ended, and showed the thread back in its wait
/// call or in the next iteration instead of the stall. Only where lagmon may (root or
/// CAP_SYS_NICE); otherwise they keep lagmon's niceness. The target and lagmon's other threads
/// are not changed (niceness is per thread; the target is spawned from the main thread).
enum MonitorPriority {
    /// The nice value the observing threads ask for.
    static let niceValue: Int32 = -10

    /// Raises the calling thread to `niceValue` if it may; silently keeps its niceness if not.
    static func raiseCurrentThread() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(lagmon_gettid()), niceValue)
    }
}
