import LagmonCore
import Prometheus
import Synchronization

/// lagmon's Prometheus metrics for one session: stalls are recorded as they end (with their
/// culprit), everything else is brought up to date from a `LiveSnapshot` (at each scrape, and at
/// the end). The registry and its text exposition are swift-prometheus's. Every series carries
/// the session's `--label`s (but `instance`, which names a pushed group only).
///
/// Counters only grow: a snapshot's running totals become increments against the previous
/// snapshot's, per loop (pid, tid) and per thread, so loops that share labels add up and a total
/// read lower than before (a reused tid) adds nothing.
public final class LiveMetrics: Sendable {
    /// The registry every metric lives in.
    public let registry = PrometheusCollectorRegistry()
    private let stallBounds: [Double]
    /// The `--label`s every series carries.
    private let constantLabels: [(String, String)]
    private let state = Mutex(State())

    /// What the previous snapshot read, and the label bounds.
    struct State {
        var loopLabels = LoopLabels()
        var threadLabels = ThreadCPULabels()
        var culpritLabels = CulpritLabels()
        var loopTotals: [LoopKey: (iterations: UInt64, busyNs: UInt64)] = [:]
        /// The labels each loop got first (the end's snapshot names processes from the command).
        var loopPairs: [LoopKey: LoopLabels.Pair] = [:]
        var stackSamples: UInt64 = 0
        var samplesLost: UInt64 = 0
        var restarts: UInt64 = 0
        var ownCPUNs: UInt64 = 0
        /// Stalls counted as they completed though the watchdog never saw them, by loop thread:
        /// the end's `recordUnseen` skips as many of that loop's unseen stalls.
        var unseenCounted: [Int32: Int] = [:]
    }

    /// One loop, across snapshots.
    struct LoopKey: Hashable {
        var pid: Int32
        var tid: Int32
    }

    /// Metrics of a session whose stall threshold is `thresholdNs`, every series labelled with
    /// `labels` (`--label`; `instance` is left out: Prometheus sets a scraped target's).
    public init(thresholdNs: UInt64, labels: [MetricLabel] = []) {
        stallBounds = StallBuckets.bounds(thresholdNs: thresholdNs)
        constantLabels = labels.filter { $0.key != MetricLabel.instanceKey }.map { ($0.key, $0.value) }
        registry.makeGauge(descriptor: MetricNames.threshold, labels: constantLabels).set(Double(thresholdNs) / 1e9)
        registry.makeGauge(descriptor: MetricNames.targetUp, labels: constantLabels).set(Int64(1))
        // Present from the first scrape, so rate() has a starting point.
        _ = registry.makeCounter(descriptor: MetricNames.stackSamples, labels: constantLabels)
        _ = registry.makeCounter(descriptor: MetricNames.samplesLost, labels: constantLabels)
    }

    /// `labels` after the session's own.
    func labeled(_ labels: [(String, String)]) -> [(String, String)] {
        constantLabels + labels
    }

    /// Counts a stall that just ended, and its time under its culprit (`StallEvent.counts`).
    public func record(_ stall: StallEvent) {
        let (pair, culprit) = state.withLock { state in
            if !stall.seenLive && stall.counts != .culprit { state.unseenCounted[stall.tid, default: 0] += 1 }
            return (
                state.loopLabels.labels(process: stall.processName, loop: stall.loopName),
                stall.counts == .stall ? nil : state.culpritLabels.label(for: stall.culprit)
            )
        }
        if let culprit {
            registry.makeCounter(
                descriptor: MetricNames.culprit, labels: labeled([("process", pair.process), ("culprit", culprit)])
            ).increment(by: Double(stall.durationNs) / 1e9)
        }
        guard stall.counts != .culprit else { return }
        registry.makeCounter(
            descriptor: MetricNames.stalls,
            labels: labeled([("process", pair.process), ("loop", pair.loop), ("diagnosis", stall.diagnosis.rawValue)])
        ).increment()
        registry.makeValueHistogram(
            descriptor: MetricNames.stallDuration, labels: labeled([("process", pair.process), ("loop", pair.loop)]),
            buckets: stallBounds
        ).record(Double(stall.durationNs) / 1e9)
    }

    /// Gives `culprits` (busiest first) their own series while there is room (`CulpritLabels`).
    func admitCulprits(_ culprits: [String]) {
        state.withLock { $0.culpritLabels.admit(culprits) }
    }

    /// The labels of loop `tid` of process `pid`, named `process` and `loop` (the same ever after).
    func loopPair(pid: Int32, tid: Int32, process: String, loop: String) -> LoopLabels.Pair {
        state.withLock { state in
            let key = LoopKey(pid: pid, tid: tid)
            let pair = state.loopPairs[key] ?? state.loopLabels.labels(process: process, loop: loop)
            state.loopPairs[key] = pair
            return pair
        }
    }

    /// Brings every other metric up to `snapshot`.
    public func update(_ snapshot: LiveSnapshot) {
        state.withLock { state in
            updateLoops(snapshot.loops, state: &state)
            updateThreads(snapshot, state: &state)
            increment(MetricNames.stackSamples, from: &state.stackSamples, to: snapshot.stackSamples)
            increment(MetricNames.samplesLost, from: &state.samplesLost, to: snapshot.samplesLost)
            increment(MetricNames.restarts, from: &state.restarts, to: snapshot.restarts)
            let ownCPU = registry.makeCounter(descriptor: MetricNames.ownCPU, labels: constantLabels)
            if snapshot.ownCPUNs > state.ownCPUNs {
                ownCPU.increment(by: Double(snapshot.ownCPUNs - state.ownCPUNs) / 1e9)
                state.ownCPUNs = snapshot.ownCPUNs
            }
        }
        registry.makeGauge(descriptor: MetricNames.ownRSS, labels: constantLabels).set(
            Int64(clamping: snapshot.ownRSSBytes))
        registry.makeGauge(descriptor: MetricNames.targetUp, labels: constantLabels).set(
            Int64(snapshot.targetUp ? 1 : 0))
    }

    /// The session is over: `lagmon_target_up` goes. A push is a finished run's numbers, which
    /// the Pushgateway keeps for ever: a `0` there would read as a target down for ever (and fire
    /// `LagmonTargetDown`); there is no target to be up or down.
    public func sessionEnded() {
        registry.unregisterGauge(registry.makeGauge(descriptor: MetricNames.targetUp, labels: constantLabels))
    }

    /// At the end of a session: counts the stalls its report lists that were never seen live
    /// (over before the loop was discovered, or when the watchdog woke late), so the final counts
    /// equal the report's. Stalls seen live were counted as they ended, and so were unseen ones
    /// whose record completed during the session (`StallEvent.seenLive` false: the /proc probe's
    /// loops), which are not counted again; one still going at the end is not counted (it did
    /// not end).
    public func recordUnseen(_ stalls: [StallReport], processName: String) {
        for stall in stalls where !stall.seenLive && !stall.ongoingAtExit {
            if takeCountedUnseen(tid: stall.thread.tid) { continue }
            record(
                StallEvent(
                    pid: stall.pid ?? 0, processName: processName, tid: stall.thread.tid, loopName: stall.thread.name,
                    durationNs: stall.durationNs, diagnosis: stall.diagnosis.kind))
        }
    }

    /// At the end of a session: counts the folded stalls of `loop` (`FoldedStalls`) that were
    /// never seen live, each at its duration bucket's middle, with no diagnosis (the watchdog
    /// took no samples of them).
    public func recordUnseen(_ folded: FoldedStalls, loop: LoopReport, processName: String) {
        for (index, count) in folded.unseenBuckets {
            let stall = StallEvent(
                pid: loop.pid, processName: processName, tid: loop.thread.tid, loopName: loop.thread.name,
                durationNs: min(LatencyBuckets.representative(of: index), folded.maxNs), diagnosis: .unknown)
            for _ in 0..<count where !takeCountedUnseen(tid: loop.thread.tid) { record(stall) }
        }
    }

    /// Whether one more unseen stall of loop `tid` was counted already as it completed (and,
    /// if so, takes it off that count).
    private func takeCountedUnseen(tid: Int32) -> Bool {
        state.withLock { state in
            guard let counted = state.unseenCounted[tid], counted > 0 else { return false }
            state.unseenCounted[tid] = counted - 1
            return true
        }
    }

    /// At the end of a session: StrictMode's blocking calls (the report's), count and time by
    /// call (a fixed set of libc names); calls the probe's table had no room for count as
    /// `other`, without a time (none was kept).
    public func recordBlockingCalls(_ calls: [BlockingCallReport], unrecorded: UInt64, processName: String) {
        var byCall: [String: (count: UInt64, totalNs: UInt64)] = [:]
        for call in calls {
            let name = BlockingCall.allCases.contains { $0.name == call.call } ? call.call : "other"
            byCall[name, default: (0, 0)].count &+= call.count
            byCall[name, default: (0, 0)].totalNs &+= call.totalNs
        }
        if unrecorded > 0 { byCall["other", default: (0, 0)].count &+= unrecorded }
        for (call, sums) in byCall {
            let labels = labeled([("process", processName), ("call", call)])
            registry.makeCounter(descriptor: MetricNames.blockingCalls, labels: labels).increment(
                by: Int64(clamping: sums.count))
            registry.makeCounter(descriptor: MetricNames.blockingCallTime, labels: labels).increment(
                by: Double(sums.totalNs) / 1e9)
        }
    }

    /// The Prometheus text exposition (format 0.0.4) of every metric.
    public func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }

    private func increment(_ name: MetricNameDescriptor, from last: inout UInt64, to value: UInt64) {
        let counter = registry.makeCounter(descriptor: name, labels: constantLabels)
        guard value > last else { return }
        counter.increment(by: Int64(clamping: value - last))
        last = value
    }

    private func updateLoops(_ loops: [LiveLoopTotals], state: inout State) {
        var buckets: [LoopLabels.Pair: [Int: UInt64]] = [:]
        for loop in loops {
            let key = LoopKey(pid: loop.pid, tid: loop.tid)
            let pair = state.loopPairs[key] ?? state.loopLabels.labels(process: loop.processName, loop: loop.loopName)
            state.loopPairs[key] = pair
            let labels = labeled([("process", pair.process), ("loop", pair.loop)])
            let last = state.loopTotals[key] ?? (0, 0)
            let iterations = registry.makeCounter(descriptor: MetricNames.iterations, labels: labels)
            let busy = registry.makeCounter(descriptor: MetricNames.busy, labels: labels)
            if loop.iterations > last.iterations {
                iterations.increment(by: Int64(clamping: loop.iterations - last.iterations))
            }
            if loop.busyNs > last.busyNs { busy.increment(by: Double(loop.busyNs - last.busyNs) / 1e9) }
            state.loopTotals[key] = (max(loop.iterations, last.iterations), max(loop.busyNs, last.busyNs))
            buckets[pair, default: [:]].merge(loop.busyBuckets, uniquingKeysWith: +)
        }
        for (pair, counts) in buckets { setQuantiles(pair, counts) }
    }

    private func setQuantiles(_ pair: LoopLabels.Pair, _ counts: [Int: UInt64]) {
        for percentile in [50, 90, 99] {
            let valueNs = BucketPercentiles.valueNs(counts, percentile: Double(percentile))
            registry.makeGauge(
                descriptor: MetricNames.latency(percentile: String(percentile)),
                labels: labeled([("process", pair.process), ("loop", pair.loop)])
            ).set(Double(valueNs) / 1e9)
        }
    }

    private func updateThreads(_ snapshot: LiveSnapshot, state: inout State) {
        let perSecond = max(snapshot.cpuTicksPerSecond, 1)
        // Nanoseconds, whatever unit the readings came in, so label increments add up exactly.
        let readings = snapshot.threads.map { reading in
            var inNs = reading
            inNs.cpuTicks =
                reading.cpuTicks / perSecond * 1_000_000_000 + reading.cpuTicks % perSecond * 1_000_000_000 / perSecond
            return inNs
        }
        for (thread, ns) in state.threadLabels.increments(readings) {
            registry.makeCounter(
                descriptor: MetricNames.threadCPU,
                labels: labeled([("process", snapshot.processName), ("thread", thread)])
            ).increment(by: Double(ns) / 1e9)
        }
    }
}
