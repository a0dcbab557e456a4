/// The channel is written by the target, so everything lagmon read from a slot is only a claim.
/// These checks keep what an honest probe could have written and count the rest: times inside
/// the span the loop was observed, stalls that start before they end, totals no longer than the
/// span, a histogram with no more periods than the loop completed.
extension LoopRecording {
    /// Keeps only what is plausible of every loop in `loops` (each observed up to its own end, or
    /// the session's, `sessionEndNs`); returns how many values were dropped or clamped.
    public static func keepPlausible(_ loops: inout [LoopRecording], sessionEndNs: UInt64) -> Int {
        var rejected = 0
        for index in loops.indices {
            let checked = loops[index].plausible(untilNs: loops[index].endNs ?? sessionEndNs)
            loops[index] = checked.loop
            rejected += checked.rejected
        }
        return rejected
    }

    /// Slack for the probe's clock (a calibrated TSC, within a microsecond of CLOCK_MONOTONIC)
    /// against lagmon's: an honest time this far past the end is clamped, not rejected.
    public static let clockSlackNs: UInt64 = 1_000_000

    /// The recording with every implausible value dropped or clamped, given that the loop was
    /// observed no later than `untilNs` (channel clock), and how many values were.
    public func plausible(untilNs: UInt64) -> (loop: LoopRecording, rejected: Int) {
        var loop = self
        var rejected = 0
        func inSpan(_ ns: UInt64) -> Bool { ns >= loop.claimedNs && ns <= untilNs.addingSlack }
        if loop.claimedNs > untilNs {
            loop.claimedNs = untilNs
            rejected += 1
        }
        let spanNs = untilNs - loop.claimedNs
        // An observer records a stall only in an awake activity (before-sources, after-waiting).
        let records = loop.stallRecords.filter {
            inSpan($0.startNs) && inSpan($0.endNs) && $0.startNs <= $0.endNs && $0.activity.isStalling
        }
        rejected += loop.stallRecords.count - records.count
        loop.stallRecords = records.map {
            StallRecord(
                startNs: min($0.startNs, untilNs), endNs: min($0.endNs, untilNs), activity: $0.activity,
                ordinal: $0.ordinal)
        }
        if let open = loop.openBusySinceNs, !inSpan(open) {
            loop.openBusySinceNs = nil
            rejected += 1
        }
        if loop.lastSnapshot.activity != .none, !inSpan(loop.lastSnapshot.sinceNs) {
            loop.lastSnapshot = LoopSnapshot(activity: .none, sinceNs: 0)
            rejected += 1
        }
        rejected += loop.clampBusyTimes(spanNs: spanNs)
        let iterations = loop.longIterations.filter { inSpan($0.startNs) && $0.startNs <= $0.endNs }
        rejected += loop.longIterations.count - iterations.count
        loop.longIterations = iterations
        return (loop, rejected)
    }

    /// Counts no larger than the nanoseconds observed (every transition reads a clock), busy
    /// totals no longer than the span, the longest period no longer than the total, and a
    /// histogram that holds no more periods than were completed (plus the open one).
    private mutating func clampBusyTimes(spanNs: UInt64) -> Int {
        var rejected = 0
        for count in [\LoopRecording.passes, \.transitions, \.busyCount, \.stallRecordsLost]
        where self[keyPath: count] > spanNs {
            self[keyPath: count] = spanNs
            rejected += 1
        }
        if busyTotalNs > spanNs {
            busyTotalNs = spanNs
            rejected += 1
        }
        if busyMaxNs > busyTotalNs {
            busyMaxNs = busyTotalNs
            rejected += 1
        }
        let periods = busyBuckets.values.reduce(0, saturatingAdd)
        let valid = busyBuckets.keys.allSatisfy { $0 >= 0 && $0 < LatencyBuckets.count }
        if !valid || periods > busyCount.addingSlack {
            busyBuckets = [:]
            rejected += 1
        }
        return rejected
    }
}

extension UInt64 {
    /// `self` plus the clock slack, saturating.
    fileprivate var addingSlack: UInt64 { saturatingAdd(self, LoopRecording.clockSlackNs) }
}
