import CLagmonLinux
import Glibc

/// The threads that observe the target on a deadline — the watchdogs, the /proc probe's
/// watcher, the stack sampler — run ahead of ordinary load. Each wakes for microseconds every few
/// milliseconds, so the priority costs nobody CPU; without it, on a busy machine (every core taken
/// by builds, or by `make test-loaded`'s spinners), they waited for a CPU longer than whole
/// stalls: a stall's samples were taken after it ended, and showed the thread back in its wait
/// call or in the next iteration instead of the stall. Only where lagmon may (root or
/// CAP_SYS_NICE); otherwise they keep lagmon's niceness. The threads that only look take the
/// lowest real-time priority instead (`raiseLookingThread`). The target and lagmon's other threads
/// are not changed (niceness is per thread; the target is spawned from the main thread).
enum MonitorPriority {
    /// The nice value the observing threads ask for.
    static let niceValue: Int32 = -10

    /// Raises the calling thread to `niceValue` if it may; silently keeps its niceness if not,
    /// or if it is already higher (lagmon started under `nice -n -15` keeps -15: lowered to -10,
    /// the sampler fell behind a target at -15 on a loaded machine).
    static func raiseCurrentThread() {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let tid = id_t(lagmon_gettid())
        errno = 0
        let current = getpriority(which, tid)
        guard errno != 0 || current > niceValue else { return }
        _ = setpriority(which, tid, niceValue)
    }

    /// The real-time priority the threads that only look (`raiseLookingThread`) ask for: the
    /// lowest, below any real-time thread of the target's.
    static let lookingPriority: Int32 = 1

    /// For a thread that wakes on a deadline only to look (a watchdog, the /proc watcher):
    /// SCHED_FIFO at `lookingPriority` where lagmon may (root, CAP_SYS_NICE or RLIMIT_RTPRIO),
    /// otherwise `raiseCurrentThread`. A niced thread woken on the CPU where a target thread
    /// computes waited for the scheduler's next tick to run: a 2 ms timed wait beside one
    /// process busy 4 ms in 8 woke up to 3.9 ms late (29 of 2,000 waits over 1 ms); at SCHED_FIFO
    /// 1, 117 µs at most (docs/design.md). Each look takes microseconds and then sleeps, so the
    /// class costs the target no more CPU than before, only the wait for it.
    static func raiseLookingThread() {
        var parameters = sched_param(sched_priority: lookingPriority)
        if pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) != 0 { raiseCurrentThread() }
    }
}
