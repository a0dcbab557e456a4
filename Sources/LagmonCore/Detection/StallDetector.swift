/// Decides, from successive snapshots of one loop, when a stall begins and ends and when the
/// watchdog should look again. Pure: the caller supplies the clock, so tests drive it by hand.
///
/// A stall is the loop staying in before-sources or after-waiting, with no further transition,
/// for longer than the threshold. Its start is the observer's timestamp of the transition into
/// that state, never the moment the watchdog noticed.
public struct StallDetector: Sendable {
    /// Tuning for one detector.
    public struct Configuration: Sendable, Equatable {
        /// A loop awake in one activity for longer than this is stalled.
        public var thresholdNs: UInt64
        /// How often to look at a loop that is stalled (the sampling cadence).
        public var stalledPollNs: UInt64
        /// When to start looking closely at a busy loop, as nanoseconds before the threshold
        /// (0 = at the threshold). Lets samplers cover the beginning of a stall.
        public var armLeadNs: UInt64
        /// An idle loop seen unchanged this long lets the watchdog park until woken (`.max`: never
        /// park, for a loop whose observer wakes no parked watchdog, except once it exited).
        public var parkAfterIdleNs: UInt64
        /// A parked watchdog still wakes this often for housekeeping.
        public var parkTimeoutNs: UInt64

        public init(
            thresholdNs: UInt64, stalledPollNs: UInt64 = SessionSettings.defaultSampleIntervalNs, armLeadNs: UInt64 = 0,
            parkAfterIdleNs: UInt64 = 250_000_000, parkTimeoutNs: UInt64 = 1_000_000_000
        ) {
            self.thresholdNs = thresholdNs
            self.stalledPollNs = stalledPollNs
            self.armLeadNs = min(armLeadNs, thresholdNs)
            self.parkAfterIdleNs = parkAfterIdleNs
            self.parkTimeoutNs = parkTimeoutNs
        }
    }

    /// A stall the detector is watching.
    public struct LiveStall: Sendable, Equatable {
        /// When the loop entered the stalling activity (channel clock).
        public var startNs: UInt64
        /// The activity it is stuck in.
        public var activity: LoopActivity
        /// When the watchdog noticed it (channel clock).
        public var noticedNs: UInt64
    }

    /// What changed since the previous look.
    public enum Event: Sendable, Equatable {
        /// The loop has been busy in one activity for `armLeadNs` less than the threshold
        /// (emitted on every look until it becomes a stall or moves on).
        case armed(startNs: UInt64, activity: LoopActivity)
        /// An armed loop moved on before the threshold: no stall.
        case disarmed(startNs: UInt64)
        /// A stall crossed the threshold.
        case began(LiveStall)
        /// A stall is still going (emitted on every look while stalled).
        case continuing(LiveStall)
        /// A stall ended; it ended no later than `endedByNs` (the next transition's timestamp
        /// if the watchdog saw it, otherwise a later one).
        case ended(LiveStall, endedByNs: UInt64)
    }

    /// When the watchdog should look next.
    public enum Wake: Sendable, Equatable {
        /// Sleep until this instant (channel clock).
        case at(UInt64)
        /// Park until the observer wakes us, or until this instant at the latest.
        case parked(until: UInt64)
    }

    public let configuration: Configuration
    /// The stall in progress, if any.
    public private(set) var current: LiveStall?
    private var armedFor: LoopSnapshot?
    private var idleSnapshot: LoopSnapshot?
    private var idleSeenAtNs: UInt64 = 0

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Takes one look at the loop at `nowNs` and returns what happened and when to look again.
    public mutating func observe(_ snapshot: LoopSnapshot, nowNs: UInt64) -> (events: [Event], wake: Wake) {
        var events: [Event] = []
        if let armed = armedFor, armed != snapshot {
            events.append(.disarmed(startNs: armed.sinceNs))
            armedFor = nil
        }
        if let stall = current, snapshot != LoopSnapshot(activity: stall.activity, sinceNs: stall.startNs) {
            events.append(.ended(stall, endedByNs: snapshot.sinceNs))
            current = nil
        }
        if snapshot.activity.isStalling {
            idleSnapshot = nil
            return (events + observeStalling(snapshot, nowNs: nowNs), wakeWhileStalling(snapshot, nowNs: nowNs))
        }
        if snapshot.activity.isIdle {
            return (events, wakeWhileIdle(snapshot, nowNs: nowNs))
        }
        idleSnapshot = nil
        return (events, .at(nowNs + configuration.thresholdNs))
    }

    /// The stall still open when the loop's process ended at `endNs`, if the loop's last state
    /// was a stalling one held longer than the threshold.
    public func stallOpen(at endNs: UInt64, last snapshot: LoopSnapshot) -> (startNs: UInt64, activity: LoopActivity)? {
        guard snapshot.activity.isStalling, endNs > snapshot.sinceNs,
            endNs - snapshot.sinceNs > configuration.thresholdNs
        else { return nil }
        return (snapshot.sinceNs, snapshot.activity)
    }

    private mutating func observeStalling(_ snapshot: LoopSnapshot, nowNs: UInt64) -> [Event] {
        let ageNs = nowNs > snapshot.sinceNs ? nowNs - snapshot.sinceNs : 0
        if let stall = current { return [.continuing(stall)] }
        if ageNs > configuration.thresholdNs {
            let stall = LiveStall(startNs: snapshot.sinceNs, activity: snapshot.activity, noticedNs: nowNs)
            current = stall
            armedFor = nil
            return [.began(stall)]
        }
        let armAtNs = configuration.thresholdNs - configuration.armLeadNs
        if configuration.armLeadNs > 0, ageNs >= armAtNs {
            armedFor = snapshot
            return [.armed(startNs: snapshot.sinceNs, activity: snapshot.activity)]
        }
        return []
    }

    private func wakeWhileStalling(_ snapshot: LoopSnapshot, nowNs: UInt64) -> Wake {
        // No later than a threshold: the look after this stall ends must come before the next
        // one can have begun and ended (an idle gap plus a stall is longer than a threshold).
        // Polling every sample interval (10 ms) under a 2 ms threshold missed every other 4 ms
        // stall of a loop idle 4 ms between them: it began and ended between two looks.
        if current != nil { return .at(nowNs + min(configuration.stalledPollNs, configuration.thresholdNs)) }
        let thresholdAtNs = snapshot.sinceNs + configuration.thresholdNs + 1
        // Armed: poll, but never past the threshold, or a stall just over it ends unseen.
        if armedFor == snapshot { return .at(min(nowNs + configuration.stalledPollNs, thresholdAtNs)) }
        let armAtNs = snapshot.sinceNs + configuration.thresholdNs - configuration.armLeadNs
        let next = configuration.armLeadNs > 0 && armAtNs > nowNs ? armAtNs : thresholdAtNs
        return .at(max(next, nowNs + 1))
    }

    private mutating func wakeWhileIdle(_ snapshot: LoopSnapshot, nowNs: UInt64) -> Wake {
        if idleSnapshot != snapshot {
            idleSnapshot = snapshot
            idleSeenAtNs = nowNs
        }
        // A loop that never parks (a Swift job slot) still parks once it exited: its thread is
        // gone, so nothing will change, and nothing needs waking.
        let final = configuration.parkAfterIdleNs == .max && snapshot.activity == .exit
        if final || nowNs - idleSeenAtNs >= configuration.parkAfterIdleNs {
            return .parked(until: nowNs + configuration.parkTimeoutNs)
        }
        // A loop that wakes right after this look is still caught exactly: the next look
        // comes before its threshold could pass and schedules the threshold itself. With an
        // arming lead the next look comes by the arming point instead, so that the samples of a
        // stall's beginning are not late either: looking a threshold later armed a loop woken
        // just after a look only at the threshold (a 140 ms stall of a timer-driven loop, idle
        // too briefly to park, got its first sample at 94 ms and 4-5 samples instead of 9).
        if configuration.armLeadNs > 0 {
            return .at(nowNs + max(configuration.thresholdNs - configuration.armLeadNs, 1))
        }
        return .at(nowNs + configuration.thresholdNs)
    }
}
