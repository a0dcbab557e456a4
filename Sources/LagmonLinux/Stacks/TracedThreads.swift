import CLagmonLinux
import LagmonCore

/// The threads the sampler has seized (ptrace's tracer is the sampler thread), what it keeps of
/// each across its stops, and the sweep that reaps the zombies only it can reap.
struct TracedThreads {
    /// The tracer of each thread seized and not yet let go.
    var tracers: [Int32: ThreadTracer] = [:]
    /// When each stopped thread's current wait may have started (`ThreadTracer.whileStopped`),
    /// kept across its stops; bounded by `maxWaitHistories` (forgetting only shortens a
    /// restarted wait).
    private var waitHistories: [Int32: WaitHistory] = [:]
    static let maxWaitHistories = 4096
    /// Threads seized since they were last seen untraced, for `reapTracedZombies()`.
    private var seized: Set<Int32> = []
    /// When `reapTracedZombies()` last looked.
    private var lastZombieSweepNs: UInt64 = 0

    /// The tracer of `tid`: the one that holds it, else a new one (not seized yet).
    func tracer(_ tid: Int32) -> ThreadTracer { tracers[tid] ?? ThreadTracer(tid: tid) }

    /// `tracer` has seized its thread.
    mutating func seized(_ tracer: ThreadTracer) {
        tracers[tracer.tid] = tracer
        seized.insert(tracer.tid)
    }

    /// Forgets `tracer` once it let its thread go (at the end of a pause, `whileStopped`).
    mutating func forgetIfDetached(_ tracer: ThreadTracer) {
        if !tracer.attached { tracers.removeValue(forKey: tracer.tid) }
    }

    /// Thread `tid`'s wait history (`WaitHistory`), for one stop.
    func waitHistory(_ tid: Int32) -> WaitHistory { waitHistories[tid] ?? WaitHistory() }

    /// Keeps thread `tid`'s wait history after a stop.
    mutating func keep(_ history: WaitHistory, of tid: Int32) {
        waitHistories[tid] = history
        if waitHistories.count > Self.maxWaitHistories { waitHistories.removeAll() }
    }

    /// Detaches from `tid`; a thread that does not stop at once is kept and serviced until the
    /// detach completes, so it is never left stopped.
    mutating func release(_ tid: Int32) {
        tracers[tid]?.detach()
        if tracers[tid]?.attached != true { tracers.removeValue(forKey: tid) }
    }

    /// Services the stops of every thread still held, and forgets those let go.
    mutating func service() {
        for (tid, tracer) in tracers {
            try? tracer.serviceStops()
            if !tracer.attached { tracers.removeValue(forKey: tid) }
        }
    }

    /// A thread that exited while this thread traced it is a zombie only this thread can reap,
    /// and its process cannot finish exiting before (lagmon would wait for its target for ever).
    /// The tracers reap the ones they still hold; this sweep, every 50 ms, reaps any other: it
    /// looks at each thread seized since it was last seen untraced and reaps it once /proc shows
    /// it a zombie traced by this thread. (A process-test run caught one that every tracer had let
    /// go: the Swift concurrency fixture's pool thread, a zombie with TracerPid the sampler's.)
    mutating func reapTracedZombies() {
        guard !seized.isEmpty else { return }
        let nowNs = MonotonicClock.nowNs()
        guard nowNs &- lastZombieSweepNs >= 50_000_000 else { return }
        lastZombieSweepNs = nowNs
        let me = lagmon_gettid()
        for tid in seized where tracers[tid] == nil {
            guard let status = ProcFS.readFile("/proc/\(tid)/status") else {
                seized.remove(tid)
                continue
            }
            let text = String(decoding: status, as: UTF8.self)
            guard text.contains("\nTracerPid:\t\(me)\n") else {
                seized.remove(tid)
                continue
            }
            if text.contains("\nState:\tZ"), lagmon_reap_exited(tid) == 1 { seized.remove(tid) }
        }
    }
}
