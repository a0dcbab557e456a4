import LagmonCore
import LagmonSymbols
import Synchronization

/// Names the culprit of each stall live metrics count while the session runs, off the
/// sampler's thread: stalls with stack samples wait here (at most `maxPending`) until its own
/// thread, every `intervalNs`, takes a copy of the sampler's samples (`StackSampler.Request.copy`),
/// symbolizes those of the waiting stalls only and profiles them as the report does
/// (`StallProfiler`), then hands each stall's culprit time on (`StallEvent.Counts.culprit`: the
/// stall itself was counted as it ended). So `lagmon_stall_culprit_seconds_total` moves during an
/// attach, not only when the session ends.
///
/// A stall waits about one interval plus its symbolization (the first stall of an image reads
/// its symbol table; later ones find it cached). A sampler that does not hand its copy over in
/// time leaves the stalls waiting for the next round; at the end `flush` names those still
/// waiting from the session's symbolized samples. Past `maxPending`, a stall goes on at once
/// without a culprit (`none`): a burst never grows lagmon's memory.
final class LiveCulpritResolver: Sendable {
    /// A stall waiting for its culprit, and the busy period its samples are kept under.
    struct Waiting: Sendable {
        var stall: StallEvent
        var key: UInt64
    }

    /// Stalls waiting, at most.
    static let maxPending = 4096
    /// How often waiting stalls are named.
    static let intervalNs: UInt64 = 500_000_000

    private let sampler: StackSampler
    private let pid: Int32
    private let report: @Sendable (StallEvent) -> Void
    private let waiting = Mutex<[Waiting]>([])
    private let task = PeriodicTask()
    /// Set by `stop`: a round in progress leaves its remaining stalls to `flush`.
    private let stopping = Atomic<Bool>(false)
    /// The resolver thread's symbolizer, made at its first stall (it looks for the external
    /// symbolizer tool in PATH) and kept, so symbol tables are read once per image.
    private let symbolizer = Mutex<Symbolizer?>(nil)

    init(sampler: StackSampler, pid: Int32, report: @escaping @Sendable (StallEvent) -> Void) {
        self.sampler = sampler
        self.pid = pid
        self.report = report
    }

    func start() throws(SystemError) {
        try task.start(intervalNs: Self.intervalNs, name: "lagmon-culprits") { [self] in resolveWaiting() }
    }

    /// Stops the thread (a round in progress ends after the stall it is naming); stalls still
    /// waiting stay for `flush`.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        task.stop()
    }

    /// Stall `stall`, whose samples are kept under busy period `key`, waits for its culprit.
    func add(_ stall: StallEvent, key: UInt64) {
        let admitted = waiting.withLock { waiting in
            guard waiting.count < Self.maxPending else { return false }
            waiting.append(Waiting(stall: stall, key: key))
            return true
        }
        if !admitted { report(stall) }
    }

    /// At the end (the thread stopped): names the stalls still waiting from the session's
    /// symbolized samples, by thread and busy period, and hands them on.
    func flush(_ samples: [Int32: [UInt64: [ResolvedSample]]]) {
        for entry in takeWaiting() {
            report(named(entry.stall, samples[entry.stall.tid]?[entry.key] ?? []))
        }
    }

    /// One round: a copy of the samples, the waiting stalls' symbolized and profiled.
    private func resolveWaiting() {
        // Taken before the copy is asked for: the sampler handled each one's end before it was
        // added, so the copy, served after, holds all their samples.
        let batch = takeWaiting()
        guard !batch.isEmpty else { return }
        let reply = StackSampler.ResultCopy()
        sampler.request(.copy(into: reply))
        guard let copy = reply.wait(timeoutNs: 2_000_000_000) else {
            waiting.withLock { $0.insert(contentsOf: batch, at: 0) }
            return
        }
        let symbolizer = self.symbolizer.withLock { held in
            if let held { return held }
            let made = Symbolizer()
            held = made
            return made
        }
        for (index, entry) in batch.enumerated() {
            if stopping.load(ordering: .relaxed) {
                waiting.withLock { $0.insert(contentsOf: batch[index...], at: 0) }
                return
            }
            let samples = copy.samples[entry.key] ?? []
            let resolved =
                samples.isEmpty ? [] : copy.resolved(key: entry.key, samples: samples, pid: pid, symbolizer: symbolizer)
            report(named(entry.stall, resolved))
        }
    }

    /// The stalls waiting, now no longer.
    private func takeWaiting() -> [Waiting] {
        waiting.withLock { waiting in
            defer { waiting.removeAll() }
            return waiting
        }
    }

    /// `stall` with the culprit of `samples`, profiled as the report profiles a stall (threads
    /// that could not be stopped left only their state: no stack).
    private func named(_ stall: StallEvent, _ samples: [ResolvedSample]) -> StallEvent {
        var named = stall
        named.culprit = StallProfiler().profile(samples.filter { !$0.sample.isStateOnly }).culprit?.symbol
        return named
    }
}
