import CLagmonLinux
import Glibc
import LagmonCore

/// Everything `StackSampler`'s thread works with, owned by that thread (`ThreadOwned`): the
/// result so far, the threads it traces, each sampled process's state, and the collaborators
/// that follow busy periods (stop windows, thinning, contention, major faults) and bound the
/// reads of target memory. Requests come in through `handle(_:)`; between batches `tend()`
/// looks after threads left seized.
final class SamplerWorker {
    let pid: Int32
    let clock: @Sendable () -> UInt64
    let readState: @Sendable (Int32) -> ThreadStateSample?
    let options: StackSampler.Options
    private let counts: StackSampler.LiveCounts
    var result = StackSampler.Result(samples: [:], maps: [:], unavailable: nil, failures: 0)
    /// The threads seized, and what is kept of each across its stops.
    var threads = TracedThreads()
    /// Each sampled process's unwinder, images, interpreter and perf map.
    var processes: [Int32: SampledProcess] = [:]
    /// Each sampled thread's process map for its current busy period (its stack mapping).
    var stackMappings: [Int32: ProcessMemoryMap] = [:]
    /// The unwind tables of the images, and the files they came from.
    let unwindImages = UnwindImages()
    var stopWindows: StopWindows
    var thinning: PeriodThinning
    var contention = ContentionTracker()
    var faults = MajorFaultTracker()
    var memory = MemoryReads()

    init(
        pid: Int32, clock: @escaping @Sendable () -> UInt64,
        readState: @escaping @Sendable (Int32) -> ThreadStateSample?, options: StackSampler.Options,
        counts: StackSampler.LiveCounts
    ) {
        self.pid = pid
        self.clock = clock
        self.readState = readState
        self.options = options
        self.counts = counts
        stopWindows = StopWindows(onChange: options.onStopWindow)
        thinning = PeriodThinning(capacity: options.maxSamplesPerPeriod)
    }

    /// Whether any thread is seized (the sampler then wakes often to service it).
    var holdsThreads: Bool { !threads.tracers.isEmpty }

    func handle(_ request: StackSampler.Request) {
        switch request {
        case .sample(let pid, let tid, let key):
            guard result.unavailable == nil else { return }
            if thinning.admitsSample(key: key), let sample = sample(pid: pid ?? self.pid, tid: tid, key: key) {
                contention.noteRunQueueWait(sample, key: key, clock: clock)
                result.samples[key, default: []].append(sample)
                thinning.thin(key: key, result: &result)
                counts.taken.add(1, ordering: .relaxed)
            }
            // After the sample: opening the perf event takes ~0.3 ms here, not to delay the first.
            faults.record(tid: tid, key: key)
            counts.lost.store(UInt64(result.failures), ordering: .relaxed)
        case .finish(let pid, let tid, let key, let closing, _):
            contention.close(key: key, samples: &result.samples) {
                closing ?? readState(tid).map { TimedThreadState(timestampNs: clock(), state: $0) }
            }
            release(tid)
            contention.finishRunQueueWait(
                key: key, excluding: [self.pid, pid ?? self.pid, getpid()], clock: clock, samples: &result.samples)
            faults.finish(key: key, pid: pid ?? self.pid, samples: &result.samples)
            thinning.forget(key: key)
            options.onFinish?(tid, key, result.samples[key] ?? [])
        case .prepare(let pid):
            guard result.unavailable == nil else { return }
            prepare(pid: pid)
        case .copy(let reply):
            reply.fill(resultSoFar())
        case .drop(let keys):
            for key in keys { drop(key: key) }
        }
    }

    /// Lets the samples of busy period `key` go, counted in `dropped`.
    private func drop(key: UInt64) {
        let samples = result.samples.removeValue(forKey: key) ?? []
        let stateOnly = samples.filter(\.isStateOnly).count
        result.dropped += samples.count - stateOnly
        result.droppedStateOnly += stateOnly
        result.maps.removeValue(forKey: key)
        result.pids.removeValue(forKey: key)
        contention.forgetOpening(key: key)
        thinning.forget(key: key)
    }

    /// Between batches of requests: services threads still seized, reaps traced zombies, and
    /// closes the stop windows of threads let go.
    func tend() {
        threads.service()
        threads.reapTracedZombies()
        stopWindows.close(keeping: threads.tracers)
    }

    /// The result so far with the files and perf maps the symbolizer needs (`stop()`, and
    /// `Request.copy` for a report snapshot).
    func resultSoFar() -> StackSampler.Result {
        var copy = result
        copy.files = unwindImages.files
        copy.fileSystems = unwindImages.fileSystems
        copy.fileProblems = unwindImages.problems
        copy.perfMapIndexes = processes.compactMapValues { process in
            process.perfMap.flatMap { $0.map.entries.isEmpty ? nil : $0.map.index() }
        }
        copy.jvmRequests = processes.values.compactMap(\.jvmPerfMapRequests.caused).sorted { $0.pid < $1.pid }
        return copy
    }

    /// The end of sampling: detaches from every thread and stops the memory reads.
    func finish() {
        releaseAll()
        memory.stop(servedFiles: unwindImages.servedFiles)
        for (pid, process) in processes where !memory.isStuck(pid: pid) { process.destroyUnwinder() }
    }

    /// Detaches from every thread, waiting (bounded) for slow ones; when this thread exits the
    /// kernel detaches anything still attached.
    private func releaseAll() {
        // Periods still open (the target ended mid-stall) keep what their faults were recorded.
        for key in faults.openKeys { faults.finish(key: key, pid: result.pids[key] ?? pid, samples: &result.samples) }
        for tid in Array(threads.tracers.keys) { release(tid) }
        let deadline = MonotonicClock.nowNs() + 1_000_000_000
        while !threads.tracers.isEmpty && MonotonicClock.nowNs() < deadline {
            threads.service()
            sched_yield()
        }
    }

    /// Detaches from `tid`; a thread that does not stop at once is kept and serviced until the
    /// detach completes, so it is never left stopped.
    func release(_ tid: Int32) {
        threads.release(tid)
        stackMappings.removeValue(forKey: tid)
    }
}
