import CLagmonLinux
import CLagmonUnwind
import Glibc
import LagmonCore
import LagmonSymbols
import Synchronization

/// Takes stack samples of the target's threads (and of its descendants' threads), one thread at
/// a time, on a thread of its own (ptrace's tracer). Other threads ask for samples with
/// `request(_:)`.
///
/// Per sample the thread is stopped only to read its registers and copy the top of its stack;
/// it is unwound from the copy after it resumed. Threads are seized while sampled and detached
/// when their stall ends, when lagmon stops, or when anything fails.
///
/// This type is the sampler's face to other threads (the request queue, live counts, start and
/// stop); everything the sampling touches belongs to its thread, a `SamplerWorker` held in a
/// `ThreadOwned`.
public final class StackSampler: Sendable {
    /// What to do.
    public enum Request: Sendable {
        /// Sample thread `tid` of process `pid` (nil: the sampler's own process) now; the sample
        /// belongs to the busy period that began at `key`.
        case sample(pid: Int32? = nil, tid: Int32, key: UInt64)
        /// The busy period `key` ended (`periodEnded`: seen over by a watchdog; false: the
        /// requester is done with it, as after a one-off sample): detach from `tid`. `closing` is
        /// the thread's counters read when the period's end was seen (`ProcFS.threadCounters`);
        /// nil: its state is read when this is handled, which a sampler kept behind does late.
        case finish(
            pid: Int32? = nil, tid: Int32, key: UInt64, closing: TimedThreadState? = nil, periodEnded: Bool = false)
        /// A loop of process `pid` is watched: read its memory map, unwind tables and interpreter
        /// now, so its first stall's samples do not wait for them (on a loaded machine that
        /// wait outlasted whole stalls). Cheap when nothing changed since.
        case prepare(pid: Int32)
        /// The samples of busy periods `keys` are no longer needed (stalls folded away, busy
        /// periods that were no stall): count them in `dropped` and let them go.
        case drop(keys: [UInt64])
        /// Copy everything sampled so far into `into` (a report snapshot).
        case copy(into: ResultCopy)
    }

    /// Everything sampled, by key.
    public struct Result: Sendable {
        public var samples: [UInt64: [StackSample]]
        /// The target's memory map as read at the first sample of each key (for symbolization
        /// after the target may have exited).
        public var maps: [UInt64: ProcessMemoryMap]
        /// The process each key's samples came from.
        public var pids: [UInt64: Int32] = [:]
        /// Set when stacks could not be taken at all, with the reason and the fix.
        public var unavailable: String?
        /// The mapped files the sampler opened (through /proc/<pid>/map_files), for the
        /// symbolizer: they name the images the target ran even when their paths changed since.
        public var files: [MappedFile.Key: MappedFile] = [:]
        /// Each sampled process's file system (its root, held open), for the symbolizer.
        public var fileSystems: [Int32: TargetFileSystem] = [:]
        /// Files the sampled processes named that could not be read (images, interpreters, perf
        /// maps), and why.
        public var fileProblems: [TargetFileProblem] = []
        /// The perf maps (`/tmp/perf-<pid>.map`) of processes whose samples held JIT code, as
        /// read after those samples, indexed: they name the functions in anonymous executable memory.
        public var perfMapIndexes: [Int32: PerfMapIndex] = [:]
        /// What lagmon's requests for JVMs' perf maps left behind, to remove at the end.
        public var jvmRequests: [JVMAttach.Request] = []
        /// Samples lost: the thread exited, would not stop within `ThreadTracer.stopTimeoutNs`
        /// (or was still being let go after such a stop), or its registers could not be read.
        public var failures: Int
        /// Samples let go by `drop`, or thinned out of a long busy period (`maxSamplesPerPeriod`):
        /// with a stack, and state-only.
        public var dropped = 0
        public var droppedStateOnly = 0
        /// Processes not sampled because their own user could not have traced them
        /// (`ProcFS.samplingRefusal`): pid → why, one line.
        public var privilegeRefusals: [Int32: String] = [:]
    }

    /// Deepest stack kept.
    public static let maxFrames = 128
    /// Stack bytes past the stack pointer always copied while the thread is stopped (more when
    /// its page extends further); outer frames are read live. 32 KiB holds the whole stack of
    /// most loops: with 1 KiB, outer frames read after the thread resumed had often changed (a
    /// busy Python 3.10 thread returns from them all the time): 3.2 % of its samples under load
    /// were cut short (an unwind error), none now. The larger copy cost about 3 % of pause p50.
    public static let stackWindowBytes = 32768

    /// How a sampler samples and whom it tells, fixed at its creation.
    struct Options: Sendable {
        /// Whether a thread found asleep in an event-loop wait call is left alone rather than
        /// stopped (`lagmon attach`, whose /proc probe counts such a thread as between
        /// iterations: the busy period sampled is over). Off for `lagmon run`, where a loop's
        /// observer can report a busy iteration blocked in a nested poll, whose stack is the
        /// evidence.
        var sparesWaitingThreads = false
        /// Samples kept of one busy period at most, spread evenly over it (`SampleThinning`; a
        /// long-running `lagmon attach`); nil: every one.
        var maxSamplesPerPeriod: Int?
        /// Called on the sampler thread when a busy period's `finish` was handled, with its
        /// samples (live metrics diagnose the stall from them).
        var onFinish: (@Sendable (_ tid: Int32, _ key: UInt64, _ samples: [StackSample]) -> Void)?
        /// Called on the sampler thread after each stop, with the thread's process and id, when
        /// the stop was asked for and when its registers were read (session clock), and the
        /// state the stop found it in (waiting in an event-loop wait call or busy): a reading of
        /// the thread, which the /proc probe of its loop takes as one of its own.
        var onStopped: StopHandler?
        /// Called on the sampler thread with `true` before a thread may be put in a ptrace stop,
        /// and with `false` once it is let go (the stop's end, or a late stop's detach). While a
        /// thread is stopped, its /proc `syscall` file shows the call it stopped in even when
        /// that call had returned (a wait whose timeout fired while the thread waited for a
        /// CPU), so the /proc probe does not take it as a reading then.
        var onStopWindow: (@Sendable (_ tid: Int32, _ open: Bool) -> Void)?
    }
    typealias StopHandler =
        @Sendable (
            _ pid: Int32, _ tid: Int32, _ requestedNs: UInt64, _ stoppedNs: UInt64, _ state: ProcLoopReading.State
        ) -> Void

    let pid: Int32
    private let queue = Mutex<[Request]>([])
    private let wakeup = Semaphore()
    private let stopping = Atomic<Bool>(false)
    /// Samples taken and lost so far, readable while sampling (live metrics).
    private let counts: LiveCounts
    private let thread = WorkerThread()
    /// The sampling state: the sampler thread's, the stopper's once it joined that thread.
    private let worker: ThreadOwned<SamplerWorker>

    /// Samples taken and lost so far, written by the sampler thread.
    final class LiveCounts: Sendable {
        let taken = Atomic<UInt64>(0)
        let lost = Atomic<UInt64>(0)
    }

    /// A sampler for process `pid`; `clock` reads the channel clock, `readState` reads a
    /// thread's /proc state just before it is paused.
    public convenience init(
        pid: Int32, clock: @escaping @Sendable () -> UInt64,
        readState: @escaping @Sendable (Int32) -> ThreadStateSample?
    ) {
        self.init(pid: pid, clock: clock, readState: readState, options: Options())
    }

    /// A sampler as `init(pid:clock:readState:)` makes, with `options`.
    init(
        pid: Int32, clock: @escaping @Sendable () -> UInt64,
        readState: @escaping @Sendable (Int32) -> ThreadStateSample?, options: Options
    ) {
        self.pid = pid
        let counts = LiveCounts()
        self.counts = counts
        worker = ThreadOwned(
            SamplerWorker(pid: pid, clock: clock, readState: readState, options: options, counts: counts))
    }

    public func start() throws(SystemError) {
        try thread.start(name: "lagmon-sampler") { [self] in
            worker.claim()
            MonitorPriority.raiseCurrentThread()
            run()
        }
    }

    /// Queues a request; never blocks.
    public func request(_ request: Request) {
        queue.withLock { $0.append(request) }
        wakeup.post()
    }

    /// Samples taken and lost so far.
    var liveCounts: (taken: UInt64, lost: UInt64) {
        (counts.taken.load(ordering: .relaxed), counts.lost.load(ordering: .relaxed))
    }

    /// Detaches from every thread, stops, and returns everything sampled.
    public func stop() -> Result {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeup.post()
        thread.join()
        worker.claim()
        return worker.value.resultSoFar()
    }

    /// The requests of `batch` worth serving, in their order. A sample of a busy period whose
    /// end (`finish` with `periodEnded`) was queued after it is left out: its stop would land in
    /// the next period or in the wait, and be thrown away after pausing the thread for nothing.
    /// A sampler kept behind (each sample took 5 ms on a loaded machine, a loop's back-to-back
    /// busy periods 9 ms) otherwise served every request late, one period behind, and never
    /// sampled a stall while it lasted. Samples of a period still going are all served: each
    /// asked for is one stop (a burst of them is how a caller asks for several).
    static func served(_ batch: [Request]) -> [Request] {
        struct Period: Hashable {
            var tid: Int32
            var key: UInt64
        }
        var ended = Set<Period>()
        var kept: [Request] = []
        for request in batch.reversed() {
            switch request {
            case .sample(_, let tid, let key):
                guard !ended.contains(Period(tid: tid, key: key)) else { continue }
            case .finish(_, let tid, let key, _, let periodEnded):
                if periodEnded { ended.insert(Period(tid: tid, key: key)) }
            case .prepare, .drop, .copy: break
            }
            kept.append(request)
        }
        return kept.reversed()
    }

    private func run() {
        let worker = worker.value
        defer { worker.finish() }
        var finishing = false
        while !finishing {
            finishing = stopping.load(ordering: .sequentiallyConsistent)
            if !finishing {
                // While threads are seized, wake often enough to let signals through promptly.
                let timeoutNs: UInt64 = worker.holdsThreads ? 2_000_000 : 200_000_000
                wakeup.wait(untilMonotonicNs: MonotonicClock.nowNs() + timeoutNs)
            }
            // Requests queued before stop() are still served (a gone target fails them fast).
            let batch = queue.withLock { queue in
                defer { queue.removeAll() }
                return queue
            }
            for request in Self.served(batch) { worker.handle(request) }
            worker.tend()
        }
    }
}
