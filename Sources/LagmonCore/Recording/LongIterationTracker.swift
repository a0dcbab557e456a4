/// Follows a loop's busy periods from the watchdog's looks and records those longer than the
/// threshold. Pure: each look passes the slot's open busy period and state and the time.
///
/// The observer only keeps a histogram of busy periods, so the watchdog follows the one in
/// progress: it looks again just after the period could cross the threshold, then every
/// `pollNs` while it lasts. The start is always the observer's wake-up timestamp; the end is
/// exact when a look finds the loop asleep, else bounded by the next wake-up (at most one look
/// late). Records are capped; the rest are counted.
public struct LongIterationTracker: Sendable {
    /// Busy periods longer than this are recorded.
    public let thresholdNs: UInt64
    /// Time between looks while a long period lasts.
    public let pollNs: UInt64
    /// Records kept, at most.
    public let maxRecords: Int
    /// Long busy periods, oldest first.
    public private(set) var records: [LongIterationRecord] = []
    /// Long busy periods beyond `maxRecords`.
    public private(set) var omitted = 0
    /// The busy period being followed: its start, and whether a look saw it past the threshold.
    private var following: (startNs: UInt64, long: Bool)?

    public init(thresholdNs: UInt64, pollNs: UInt64, maxRecords: Int = 10_000) {
        self.thresholdNs = thresholdNs
        self.pollNs = max(pollNs, 1)
        self.maxRecords = maxRecords
    }

    /// One look at `nowNs`: the loop's open busy period (nil while it sleeps) and its state.
    /// Returns when to look again at the latest, or nil when the loop sleeps.
    public mutating func observe(busySinceNs: UInt64?, snapshot: LoopSnapshot, nowNs: UInt64) -> UInt64? {
        if let current = following, current.startNs != busySinceNs {
            close(current, busySinceNs: busySinceNs, snapshot: snapshot, nowNs: nowNs)
        }
        guard let busySinceNs else { return nil }
        let long = nowNs > busySinceNs && nowNs - busySinceNs > thresholdNs
        following = (busySinceNs, long || following?.long == true)
        // The start is the target's word: saturate, so a hostile one cannot trap.
        return long
            ? saturatingAdd(nowNs, pollNs) : max(saturatingAdd(busySinceNs, saturatingAdd(thresholdNs, 1)), nowNs + 1)
    }

    /// The session ended at `endNs`: a long period still open ends there.
    public mutating func finish(atNs endNs: UInt64) {
        guard let current = following else { return }
        following = nil
        if endNs > current.startNs, endNs - current.startNs > thresholdNs {
            append(LongIterationRecord(startNs: current.startNs, endNs: endNs, endSeen: false))
        }
    }

    private mutating func close(
        _ current: (startNs: UInt64, long: Bool), busySinceNs: UInt64?, snapshot: LoopSnapshot, nowNs: UInt64
    ) {
        following = nil
        let endSeen = busySinceNs == nil && snapshot.activity.isIdle
        // Without the sleep in sight, the end is before the next wake-up (or the state the loop
        // is in now), and after the previous look.
        let endNs = endSeen ? snapshot.sinceNs : min(busySinceNs ?? snapshot.sinceNs, nowNs)
        guard endNs > current.startNs else { return }
        let long = endNs - current.startNs > thresholdNs
        // An inexact end only counts when a look saw the period past the threshold.
        guard endSeen ? long : current.long else { return }
        append(LongIterationRecord(startNs: current.startNs, endNs: endNs, endSeen: endSeen))
    }

    private mutating func append(_ record: LongIterationRecord) {
        if records.count < maxRecords { records.append(record) } else { omitted += 1 }
    }
}
