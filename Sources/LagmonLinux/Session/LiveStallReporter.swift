import LagmonCore
import Synchronization

/// Hands each stall that ended to live metrics, with its process and loop names, the kind of
/// its diagnosis and its culprit. With stacks, a stall is diagnosed once the sampler handled its
/// end (its samples, with their thread states, are complete then) and counted then; its culprit
/// time follows once `LiveCulpritResolver` named it (symbols take longer). Without, at once.
final class LiveStallReporter: Sendable {
    private let report: @Sendable (StallEvent) -> Void
    /// Where stalls with stack samples wait for their culprit.
    private let culprits: LiveCulpritResolver?
    /// Stalls ended whose samples are not complete yet, by thread and start.
    private let pending = Mutex<[PendingKey: StallEvent]>([:])
    /// Process and thread names, read from /proc once per thread (bounded: cleared when full).
    private let names = Mutex<[PendingKey: (process: String, loop: String)]>([:])
    private static let maxNames = 4096

    struct PendingKey: Hashable {
        var tid: Int32
        var key: UInt64
    }

    init(report: @escaping @Sendable (StallEvent) -> Void, culprits: LiveCulpritResolver? = nil) {
        self.report = report
        self.culprits = culprits
    }

    /// Notes the watchdog's event for the loop on thread `tid` of process `pid`; `waitsForSamples`
    /// says whether the sampler will call `finished` for it.
    func note(_ event: StallDetector.Event, pid: Int32, tid: Int32, waitsForSamples: Bool) {
        switch event {
        case .began: _ = self.loopNames(pid: pid, tid: tid)
        case .ended(let stall, let endedByNs):
            let names = self.loopNames(pid: pid, tid: tid)
            let ended = StallEvent(
                pid: pid, processName: names.process, tid: tid, loopName: names.loop,
                durationNs: endedByNs > stall.startNs ? endedByNs - stall.startNs : 0, diagnosis: .unknown)
            if waitsForSamples {
                pending.withLock { $0[PendingKey(tid: tid, key: stall.startNs)] = ended }
            } else {
                report(ended)
            }
        case .armed, .continuing, .disarmed: break
        }
    }

    /// A stall of the loop on thread `tid` of process `pid` that the watchdog saw only after it
    /// ended (its record just completed): reported at once, with no diagnosis (no samples).
    func unseen(pid: Int32, tid: Int32, durationNs: UInt64) {
        let names = loopNames(pid: pid, tid: tid)
        report(
            StallEvent(
                pid: pid, processName: names.process, tid: tid, loopName: names.loop, durationNs: durationNs,
                diagnosis: .unknown, seenLive: false))
    }

    /// The sampler handled the end of busy period `key` of `tid`: reports it if it was a stall.
    func finished(tid: Int32, key: UInt64, samples: [StackSample]) {
        guard var ended = pending.withLock({ $0.removeValue(forKey: PendingKey(tid: tid, key: key)) }) else { return }
        ended.diagnosis =
            StallDiagnoser().diagnose(
                samples, durationNs: ended.durationNs, culprit: nil,
                runQueueShare: ContentionAnalyzer.analyze(samples)?.runQueueShare
            ).kind
        guard let culprits, samples.contains(where: { !$0.isStateOnly }) else {
            report(ended)
            return
        }
        ended.counts = .stall
        report(ended)
        ended.counts = .culprit
        culprits.add(ended, key: key)
    }

    private func loopNames(pid: Int32, tid: Int32) -> (process: String, loop: String) {
        let key = PendingKey(tid: tid, key: UInt64(UInt32(bitPattern: pid)))
        if let known = names.withLock({ $0[key] }) { return known }
        let process = ProcFS.taskStat(pid: pid, tid: pid)?.comm ?? "unknown"
        let loop = ProcFS.taskStat(pid: pid, tid: tid)?.comm ?? "unknown"
        names.withLock { names in
            if names.count >= Self.maxNames { names.removeAll() }
            names[key] = (process, loop)
        }
        return (process, loop)
    }
}
