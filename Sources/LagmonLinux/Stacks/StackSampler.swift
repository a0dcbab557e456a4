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
public final class StackSampler: @unchecked Sendable {
    /// What to do.
    public enum Request: Sendable {
        /// Sample thread `tid` of process `pid` (nil: the sampler's own process) now; the sample
        /// belongs to the busy period that began at `key`.
        case sample(pid: Int32? = nil, tid: Int32, key: UInt64)
        /// The busy period `key` ended: detach from `tid`. `closing` is the thread's counters
        /// read when the period's end was seen (`ProcFS.threadCounters`); nil: its state is read
        /// when this is handled, which a sampler kept behind does late.
        case finish(pid: Int32? = nil, tid: Int32, key: UInt64, closing: TimedThreadState? = nil)
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

    let pid: Int32
    let clock: @Sendable () -> UInt64
    let readState: @Sendable (Int32) -> ThreadStateSample?
    private let queue = Mutex<[Request]>([])
    private let wakeup: UnsafeMutablePointer<sem_t>
    private let stopping = Atomic<Bool>(false)
    /// Samples taken and lost so far, readable while sampling (live metrics).
    private let taken = Atomic<UInt64>(0)
    private let lost = Atomic<UInt64>(0)
    /// Called on the sampler thread when a busy period's `finish` was handled, with its samples
    /// (live metrics diagnose the stall from them). Set before `start()`.
    var onFinish: (@Sendable (_ tid: Int32, _ key: UInt64, _ samples: [StackSample]) -> Void)?
    /// Called on the sampler thread after each stop, with the thread's process and id, when the
    /// stop was asked for and when its registers were read (session clock), and the state the
    /// stop found it in (waiting in an event-loop wait call or busy): a reading of the thread,
    /// which the /proc probe of its loop takes as one of its own. Set before `start()`.
    var onStopped: StopHandler?
    typealias StopHandler =
        @Sendable (
            _ pid: Int32, _ tid: Int32, _ requestedNs: UInt64, _ stoppedNs: UInt64, _ state: ProcLoopReading.State
        ) -> Void
    /// Called on the sampler thread with `true` before a thread may be put in a ptrace stop,
    /// and with `false` once it is let go (the stop's end, or a late stop's detach). While a
    /// thread is stopped, its /proc `syscall` file shows the call it stopped in even when that
    /// call had returned (a wait whose timeout fired while the thread waited for a CPU), so the
    /// /proc probe does not take it as a reading then. Set before `start()`.
    var onStopWindow: (@Sendable (_ tid: Int32, _ open: Bool) -> Void)?
    /// Whether a thread found asleep in an event-loop wait call is left alone rather than
    /// stopped (`lagmon attach`, whose /proc probe counts such a thread as between iterations:
    /// the busy period sampled is over). Off for `lagmon run`, where a loop's observer can report
    /// a busy iteration blocked in a nested poll, whose stack is the evidence. Set before `start()`.
    var sparesWaitingThreads = false
    /// Samples kept of one busy period at most, spread evenly over it (`SampleThinning`; a
    /// long-running `lagmon attach`); nil: every one. Set before `start()`.
    var maxSamplesPerPeriod: Int?
    private var thread: JoinableThread?
    // Owned by the sampler thread.
    /// Threads whose stop window `onStopWindow` opened and has not closed.
    var stopWindows: Set<Int32> = []
    /// With `maxSamplesPerPeriod`: the thinning of each busy period being sampled, until its end.
    var thinnings: [UInt64: SampleThinning] = [:]
    var tracers: [Int32: ThreadTracer] = [:]
    /// When each stopped thread's current wait may have started (`ThreadTracer.whileStopped`),
    /// kept across its stops; bounded by `maxWaitHistories` (forgetting only shortens a
    /// restarted wait).
    var waitHistories: [Int32: WaitHistory] = [:] {
        didSet { if waitHistories.count > Self.maxWaitHistories { waitHistories.removeAll() } }
    }
    static let maxWaitHistories = 4096
    /// Threads seized since they were last seen untraced, for `reapTracedZombies()`.
    var seizedThreads: Set<Int32> = []
    /// When `reapTracedZombies()` last looked.
    var lastZombieSweepNs: UInt64 = 0
    /// One unwinder per process (its caches hold that process's unwind tables and pages).
    var unwinders: [Int32: OpaquePointer] = [:]
    var result = Result(samples: [:], maps: [:], unavailable: nil, failures: 0)
    var stackMappings: [Int32: ProcessMemoryMap] = [:]
    /// The latest images of each process, shared by every busy period that saw the same ones.
    var imageMaps: [Int32: ProcessMemoryMap] = [:]
    /// The unwind tables of the images, and the files they came from.
    let unwindImages = UnwindImages()
    /// Each Python process's frame reader; processes looked at once, with or without one.
    var pythonReaders: [Int32: CPythonFrameReader] = [:]
    var interpreterProbed: Set<Int32> = []
    /// Each process's perf map, read after samples that hold code in no mapped file.
    var perfMapFiles: [Int32: PerfMapFile] = [:]
    /// Each sampled thread's latest /proc state, the baseline of a state-only sample.
    var lastReadStates: [Int32: TimedThreadState] = [:]
    /// Per busy period: its thread's state when its first sample was asked for (before the stop).
    var openingStates: [UInt64: TimedThreadState] = [:]
    /// Per busy period whose thread waited for a CPU: when, and every process's CPU time then.
    var cpuScans: [UInt64: (atNs: UInt64, processes: [Int32: ProcessTicks])] = [:]
    /// Per busy period: the recorder of its thread's major-fault addresses, or why perf refused.
    var faultRecorders: [UInt64: Swift.Result<MajorFaultRecorder, SystemError>] = [:]
    /// The thread that reads target memory for the sampler (created at the first read).
    var memoryWorker: MemoryReadWorker?
    /// Processes whose memory could not be read in time, with the worker still holding that
    /// read: nothing of theirs is read again (nor their unwinder or frame reader touched) until
    /// it returned.
    var unreadableMemory: [Int32: MemoryReadWorker] = [:]
    /// Each process's pagemap: a stack copy of resident pages is made on the sampler's thread.
    var residentPages: [Int32: ResidentPages?] = [:]

    /// A sampler for process `pid`; `clock` reads the channel clock, `readState` reads a
    /// thread's /proc state just before it is paused.
    public init(
        pid: Int32, clock: @escaping @Sendable () -> UInt64,
        readState: @escaping @Sendable (Int32) -> ThreadStateSample?
    ) {
        self.pid = pid
        self.clock = clock
        self.readState = readState
        wakeup = .allocate(capacity: 1)
        sem_init(wakeup, 0, 0)
    }

    deinit {
        sem_destroy(wakeup)
        wakeup.deallocate()
    }

    public func start() throws(SystemError) {
        thread = try JoinableThread(name: "lagmon-sampler") { [self] in
            MonitorPriority.raiseCurrentThread()
            run()
        }
    }

    /// Queues a request; never blocks.
    public func request(_ request: Request) {
        queue.withLock { $0.append(request) }
        sem_post(wakeup)
    }

    /// Samples taken and lost so far.
    var liveCounts: (taken: UInt64, lost: UInt64) {
        (taken.load(ordering: .relaxed), lost.load(ordering: .relaxed))
    }

    /// Detaches from every thread, stops, and returns everything sampled.
    public func stop() -> Result {
        stopping.store(true, ordering: .sequentiallyConsistent)
        sem_post(wakeup)
        thread?.join()
        var result = result
        result.files = unwindImages.files
        result.fileSystems = unwindImages.fileSystems
        result.fileProblems = unwindImages.problems
        result.perfMapIndexes = perfMapFiles.compactMapValues { $0.map.entries.isEmpty ? nil : $0.map.index() }
        return result
    }

    private func run() {
        defer {
            releaseAll()
            stopMemoryReads()
        }
        var finishing = false
        while !finishing {
            finishing = stopping.load(ordering: .sequentiallyConsistent)
            if !finishing {
                // While threads are seized, wake often enough to let signals through promptly.
                let timeoutNs: UInt64 = tracers.isEmpty ? 200_000_000 : 2_000_000
                _ = lagmon_sem_wait_until_monotonic(wakeup, MonotonicClock.nowNs() + timeoutNs)
            }
            // Requests queued before stop() are still served (a gone target fails them fast).
            let batch = queue.withLock { queue in
                defer { queue.removeAll() }
                return queue
            }
            for request in batch { handle(request) }
            serviceSeizedThreads()
            reapTracedZombies()
            closeStopWindows()
        }
    }

    private func handle(_ request: Request) {
        switch request {
        case .sample(let pid, let tid, let key):
            guard result.unavailable == nil else { return }
            if admitsSample(key: key), let sample = sample(pid: pid ?? self.pid, tid: tid, key: key) {
                noteRunQueueWait(sample, key: key)
                result.samples[key, default: []].append(sample)
                thinSamples(key: key)
                taken.add(1, ordering: .relaxed)
            }
            // After the sample: opening the perf event takes ~0.3 ms here, not to delay the first.
            recordMajorFaults(tid: tid, key: key)
            lost.store(UInt64(result.failures), ordering: .relaxed)
        case .finish(let pid, let tid, let key, let closing):
            closeContention(key: key, tid: tid, closing: closing)
            release(tid)
            finishRunQueueWait(key: key, pid: pid)
            finishMajorFaults(key: key, pid: pid)
            thinnings.removeValue(forKey: key)
            onFinish?(tid, key, result.samples[key] ?? [])
        case .prepare(let pid):
            guard result.unavailable == nil else { return }
            prepare(pid: pid)
        case .copy(let reply):
            reply.fill(copyOfResult())
        case .drop(let keys):
            for key in keys {
                let samples = result.samples.removeValue(forKey: key) ?? []
                let stateOnly = samples.filter(\.isStateOnly).count
                result.dropped += samples.count - stateOnly
                result.droppedStateOnly += stateOnly
                result.maps.removeValue(forKey: key)
                result.pids.removeValue(forKey: key)
                openingStates.removeValue(forKey: key)
                thinnings.removeValue(forKey: key)
            }
        }
    }

    /// Detaches from every thread, waiting (bounded) for slow ones; when this thread exits the
    /// kernel detaches anything still attached.
    private func releaseAll() {
        // Periods still open (the target ended mid-stall) keep what their faults were recorded.
        for key in Array(faultRecorders.keys) { finishMajorFaults(key: key, pid: result.pids[key]) }
        for tid in Array(tracers.keys) { release(tid) }
        let deadline = MonotonicClock.nowNs() + 1_000_000_000
        while !tracers.isEmpty && MonotonicClock.nowNs() < deadline {
            serviceSeizedThreads()
            sched_yield()
        }
    }

    /// Detaches from `tid`; a thread that does not stop at once is kept and serviced until the
    /// detach completes, so it is never left stopped.
    func release(_ tid: Int32) {
        tracers[tid]?.detach()
        if tracers[tid]?.attached != true { tracers.removeValue(forKey: tid) }
        stackMappings.removeValue(forKey: tid)
    }

    /// A thread that exited while this thread traced it is a zombie only this thread can reap,
    /// and its process cannot finish exiting before (lagmon would wait for its target for ever).
    /// The tracers reap the ones they still hold; this sweep, every 50 ms, reaps any other: it
    /// looks at each thread seized since it was last seen untraced and reaps it once /proc shows
    /// it a zombie traced by this thread. (A process-test run caught one that every tracer had let
    /// go: the Swift concurrency fixture's pool thread, a zombie with TracerPid the sampler's.)
    func reapTracedZombies() {
        guard !seizedThreads.isEmpty else { return }
        let nowNs = MonotonicClock.nowNs()
        guard nowNs &- lastZombieSweepNs >= 50_000_000 else { return }
        lastZombieSweepNs = nowNs
        let me = lagmon_gettid()
        for tid in seizedThreads where tracers[tid] == nil {
            guard let status = ProcFS.readFile("/proc/\(tid)/status") else {
                seizedThreads.remove(tid)
                continue
            }
            let text = String(decoding: status, as: UTF8.self)
            guard text.contains("\nTracerPid:\t\(me)\n") else {
                seizedThreads.remove(tid)
                continue
            }
            if text.contains("\nState:\tZ"), lagmon_reap_exited(tid) == 1 { seizedThreads.remove(tid) }
        }
    }

    private func serviceSeizedThreads() {
        for (tid, tracer) in tracers {
            try? tracer.serviceStops()
            if !tracer.attached { tracers.removeValue(forKey: tid) }
        }
    }
}
