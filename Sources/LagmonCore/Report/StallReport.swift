/// One stall: a loop awake in one activity, without a transition, longer than the threshold.
public struct StallReport: Codable, Sendable, Equatable {
    /// 1-based, in order of start.
    public var id: Int
    /// The loop's thread.
    public var thread: ThreadRef
    /// The loop's process (absent in reports of lagmon builds before `processes`).
    public var pid: Int32?
    /// When the loop entered the stalling activity, since the target started.
    public var startNs: UInt64
    /// The same instant as nanoseconds since the Unix epoch: the target's `startedAt` (to the
    /// millisecond) plus `startNs`. Absent in reports of older lagmon builds.
    public var startUnixNs: UInt64?
    /// How long it stayed there.
    public var durationNs: UInt64
    /// `beforeSources` or `afterWaiting`.
    public var activity: String
    /// The target ended while the loop was still stuck; the duration runs to its exit.
    public var ongoingAtExit: Bool
    /// Whether lagmon's watchdog saw the stall while it happened (false: known only from the
    /// observer's record, for example because the watchdog itself was delayed).
    public var seenLive: Bool
    /// How long after the stall began the watchdog noticed it: the threshold plus the detection
    /// delay. Absent when the stall was not seen live (and in reports of earlier lagmon builds).
    public var noticedAfterNs: UInt64?
    /// Stack samples taken during the stall (0 when it was not seen live or sampling was off).
    public var samples: Int
    /// The most common distinct stacks, most samples first, frames root first.
    public var stacks: [StackCount]
    /// Distinct stacks beyond those in `stacks`.
    public var stacksOmitted: Int
    /// The deepest frame in at least half of the samples, application frames preferred.
    public var culprit: Frame?
    /// Why it stalled: a kind and one line for people.
    public var diagnosis: StallDiagnosis
    /// The id of the fingerprint grouping it with stalls in the same code (`fingerprints`).
    public var fingerprint: String?
    /// All samples merged into one call tree under a synthetic `(all)` root.
    public var callTree: CallTreeNode?
    /// Every sample in the order taken, with its time and its node in `callTree` (empty without
    /// samples; absent in reports of earlier lagmon builds).
    public var sampleTimeline: [StallSampleTime]?
    /// How the stalled loop was observed, for loops that are not a thread's own:
    /// `swift-main-actor` (a main-actor job) or `swift-pool` (a job that blocked a cooperative
    /// thread). Absent for CFRunLoop and wait-call loops.
    public var observer: String?
    /// For a stall diagnosed `lock` whose samples read the lock: the lock, its holder and the
    /// holder's stack. Absent otherwise.
    public var lock: LockWaitReport?
    /// For a stall diagnosed `io`: what /proc said while the thread sat in uninterruptible
    /// sleep (call, file, wait channel, kernel stack). Absent otherwise.
    public var uninterruptible: UninterruptibleReport?
    /// Time waiting for a CPU and major page faults over the stall's samples (and the busiest
    /// other processes when it waited). Absent with fewer than two samples.
    public var contention: ContentionReport?

    public init(
        id: Int, thread: ThreadRef, startNs: UInt64, durationNs: UInt64, activity: LoopActivity,
        ongoingAtExit: Bool, seenLive: Bool, noticedAfterNs: UInt64? = nil, profile: StackProfile = .empty,
        diagnosis: StallDiagnosis = .noSamples, pid: Int32? = nil
    ) {
        self.id = id
        self.thread = thread
        self.pid = pid
        self.startNs = startNs
        self.durationNs = durationNs
        self.activity = activity.name
        self.ongoingAtExit = ongoingAtExit
        self.seenLive = seenLive
        self.noticedAfterNs = noticedAfterNs
        self.samples = profile.samples
        self.stacks = profile.stacks
        self.stacksOmitted = profile.stacksOmitted
        self.culprit = profile.culprit
        self.diagnosis = diagnosis
        self.fingerprint = profile.fingerprint?.id
        self.callTree = profile.callTree
    }
}
