import CLagmonLinux
import Glibc
import LagmonCore
import Synchronization

/// Runs the sampler's reads of a target's memory on a thread of its own, each bounded by how
/// long it may sleep in the kernel.
///
/// `process_vm_readv` faults in the pages it reads. A page behind a userfaultfd that nobody
/// answers, or mapped from a stuck FUSE file, makes it wait for ever, and no signal but SIGKILL
/// ends the wait: on the sampler's thread (ptrace's tracer) that left the sampled thread stopped
/// and the session unable to end. Here the sampler hands the reads over and waits; a read that
/// sleeps longer than `sleepBoundNs` (time neither on a CPU nor waiting for one: the thread's
/// schedstat, so a loaded machine does not count against it), or runs longer than
/// `runBoundNs` in all, is abandoned: the sampler goes on without it and never touches what the
/// read was given until `finished` says it returned (when the target exits, its userfaultfd is
/// released and the read returns). A worker with an abandoned read takes no more work; the
/// kernel ends its thread when lagmon exits.
final class MemoryReadWorker: @unchecked Sendable {
    /// How long a read may sleep in the kernel. Reads of resident memory never sleep; a page read
    /// back from swap takes milliseconds.
    static let sleepBoundNs: UInt64 = 20_000_000
    /// How long a read may take whatever it waited for (a machine so loaded that the worker got
    /// no CPU for this long loses the sample, not the session).
    static let runBoundNs: UInt64 = 2_000_000_000
    /// How long the waiting side sleeps before it first looks at the worker's schedstat: reads
    /// that finish sooner cost no /proc read.
    static let firstLookNs: UInt64 = 1_000_000

    /// One read handed over: its closure, and a semaphore posted when it returned.
    private final class Job: @unchecked Sendable {
        let body: () -> Void
        let done: UnsafeMutablePointer<sem_t>
        init(_ body: @escaping () -> Void) {
            self.body = body
            done = .allocate(capacity: 1)
            sem_init(done, 0, 0)
        }
        deinit {
            sem_destroy(done)
            done.deallocate()
        }
    }

    /// What a closure returned, kept where a late-returning read can still write it.
    private final class Output<T>: @unchecked Sendable {
        var value: T?
    }

    private let wakeup: UnsafeMutablePointer<sem_t>
    private let pending = Mutex<Job?>(nil)
    private let stopping = Atomic<Bool>(false)
    private let workerTid = Atomic<Int32>(0)
    private var thread: JoinableThread?
    /// The read that overran its bound, if any.
    private var abandoned: Job?

    init() throws(SystemError) {
        wakeup = .allocate(capacity: 1)
        sem_init(wakeup, 0, 0)
        thread = try JoinableThread(name: "lagmon-memread") { [self] in
            MonitorPriority.raiseCurrentThread()
            workerTid.store(lagmon_gettid(), ordering: .releasing)
            serve()
        }
    }

    deinit {
        sem_destroy(wakeup)
        wakeup.deallocate()
    }

    /// Whether a read was abandoned and has not returned since.
    var stuck: Bool {
        guard let abandoned else { return false }
        if sem_trywait(abandoned.done) == 0 {
            sem_post(abandoned.done)
            return false
        }
        return true
    }

    /// Runs `body` on the worker and returns what it returned; nil when it overran its bound (it
    /// may still be running: whatever it captured must not be used until `stuck` is false).
    func perform<T>(_ body: @escaping () -> T) -> T? {
        if abandoned != nil {
            guard !stuck else { return nil }
            abandoned = nil
        }
        let output = Output<T>()
        let job = Job { output.value = body() }
        pending.withLock { $0 = job }
        sem_post(wakeup)
        guard wait(for: job) else {
            abandoned = job
            return nil
        }
        return output.value
    }

    /// Stops the worker; a worker stuck in a read is left to the kernel (joining it would hang).
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        sem_post(wakeup)
        if !stuck { thread?.join() }
    }

    private func serve() {
        while !stopping.load(ordering: .sequentiallyConsistent) {
            while sem_wait(wakeup) != 0 && errno == EINTR {}
            guard let job = pending.withLock({ $0.take() }) else { continue }
            job.body()
            sem_post(job.done)
        }
    }

    /// Waits for `job` within the bounds; false when it overran them. The worker is asleep while
    /// it is not running, not waiting for a CPU (the kernel adds a wait to `runDelayNs` only
    /// when it ends, so a worker seen runnable is never called asleep) and not on a CPU.
    private func wait(for job: Job) -> Bool {
        let startNs = MonotonicClock.nowNs()
        if lagmon_sem_wait_until_monotonic(job.done, startNs + Self.firstLookNs) == 0 { return true }
        let tid = workerTid.load(ordering: .acquiring)
        let baseline = Self.schedstat(tid)
        let baselineNs = MonotonicClock.nowNs()
        while MonotonicClock.nowNs() - startNs < Self.runBoundNs {
            if lagmon_sem_wait_until_monotonic(job.done, MonotonicClock.nowNs() + Self.firstLookNs) == 0 {
                return true
            }
            let elapsedNs = MonotonicClock.nowNs() - baselineNs
            guard elapsedNs >= Self.sleepBoundNs, let current = ProcFS.taskStat(pid: getpid(), tid: tid),
                current.state == .sleeping || current.state == .diskSleep
            else { continue }
            guard let baseline, let now = Self.schedstat(tid) else {
                // No schedstat: the elapsed time stands for the sleep, with some slack.
                if elapsedNs >= Self.sleepBoundNs * 5 { break }
                continue
            }
            let busyNs = Self.since(baseline.onCPUNs, now.onCPUNs) &+ Self.since(baseline.runDelayNs, now.runDelayNs)
            if Self.since(busyNs, elapsedNs) >= Self.sleepBoundNs { break }
        }
        // It may have returned just now.
        return sem_trywait(job.done) == 0
    }

    /// The worker thread's schedstat; nil where the kernel has none.
    private static func schedstat(_ tid: Int32) -> ProcSchedstat? {
        ProcFS.readFile("/proc/self/task/\(tid)/schedstat").flatMap(ProcSchedstat.parse)
    }

    /// `later - earlier`, or 0 when it went backwards.
    private static func since(_ earlier: UInt64, _ later: UInt64) -> UInt64 { later > earlier ? later - earlier : 0 }
}
