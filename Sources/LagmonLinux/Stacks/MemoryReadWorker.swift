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
final class MemoryReadWorker {
    /// How long a read may sleep in the kernel. Reads of resident memory never sleep; a page read
    /// back from swap takes milliseconds.
    static let sleepBoundNs: UInt64 = 20_000_000
    /// How long a read may take whatever it waited for (a machine so loaded that the worker got
    /// no CPU for this long loses the sample, not the session).
    static let runBoundNs: UInt64 = 2_000_000_000
    /// How long the waiting side sleeps before it first looks at the worker's schedstat: reads
    /// that finish sooner cost no /proc read.
    static let firstLookNs: UInt64 = 1_000_000

    /// One read handed over: its closure, and a semaphore posted when it returned. The closure
    /// and what it captured cross to the worker and back; `done` orders the two sides.
    private final class Job: @unchecked Sendable {  // `body` runs between `pending` and `done` only
        let body: () -> Void
        let done = Semaphore()
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// What a closure returned, kept where a late-returning read can still write it (read only
    /// once `done` was posted).
    private final class Output<T> {
        var value: T?
    }

    /// What the caller and the worker thread share.
    private final class Mailbox: Sendable {
        let wakeup = Semaphore()
        let pending = Mutex<Job?>(nil)
        let stopping = Atomic<Bool>(false)
        let workerTid = Atomic<Int32>(0)
    }

    private let mailbox = Mailbox()
    private let thread: JoinableThread
    /// The read that overran its bound, if any.
    private var abandoned: Job?

    init() throws(SystemError) {
        thread = try JoinableThread(name: "lagmon-memread") { [mailbox] in
            MonitorPriority.raiseCurrentThread()
            mailbox.workerTid.store(lagmon_gettid(), ordering: .releasing)
            Self.serve(mailbox)
        }
    }

    /// Whether a read was abandoned and has not returned since.
    var stuck: Bool {
        guard let abandoned else { return false }
        if abandoned.done.tryWait() {
            abandoned.done.post()
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
        mailbox.pending.withLock { $0 = job }
        mailbox.wakeup.post()
        guard wait(for: job) else {
            abandoned = job
            return nil
        }
        return output.value
    }

    /// Stops the worker; a worker stuck in a read is left to the kernel (joining it would hang).
    func stop() {
        mailbox.stopping.store(true, ordering: .sequentiallyConsistent)
        mailbox.wakeup.post()
        if !stuck { thread.join() }
    }

    private static func serve(_ mailbox: Mailbox) {
        while !mailbox.stopping.load(ordering: .sequentiallyConsistent) {
            mailbox.wakeup.wait()
            guard let job = mailbox.pending.withLock({ $0.take() }) else { continue }
            job.body()
            job.done.post()
        }
    }

    /// Waits for `job` within the bounds; false when it overran them. The worker is asleep while
    /// it is not running, not waiting for a CPU (the kernel adds a wait to `runDelayNs` only
    /// when it ends, so a worker seen runnable is never called asleep) and not on a CPU.
    private func wait(for job: Job) -> Bool {
        let startNs = MonotonicClock.nowNs()
        if job.done.wait(untilMonotonicNs: startNs + Self.firstLookNs) { return true }
        let tid = mailbox.workerTid.load(ordering: .acquiring)
        let baseline = Self.schedstat(tid)
        let baselineNs = MonotonicClock.nowNs()
        while MonotonicClock.nowNs() - startNs < Self.runBoundNs {
            if job.done.wait(untilMonotonicNs: MonotonicClock.nowNs() + Self.firstLookNs) { return true }
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
        return job.done.tryWait()
    }

    /// The worker thread's schedstat; nil where the kernel has none.
    private static func schedstat(_ tid: Int32) -> ProcSchedstat? {
        ProcFS.readFile("/proc/self/task/\(tid)/schedstat").flatMap(ProcSchedstat.parse)
    }

    /// `later - earlier`, or 0 when it went backwards.
    private static func since(_ earlier: UInt64, _ later: UInt64) -> UInt64 { later > earlier ? later - earlier : 0 }
}
