/// One stall that just ended, as live metrics count it: where it happened, how long it lasted,
/// the kind of its diagnosis (from the thread states of its samples) and its culprit.
public struct StallEvent: Sendable, Equatable {
    /// The process the loop belongs to, and its name (comm).
    public var pid: Int32
    public var processName: String
    /// The loop's thread, and its name (comm).
    public var tid: Int32
    public var loopName: String
    /// How long the stall lasted.
    public var durationNs: UInt64
    /// What kept the loop busy (`.unknown` without samples).
    public var diagnosis: StallDiagnosis.Kind
    /// False for a stall the watchdog saw only after it ended (it was late, or the /proc probe's
    /// readings were): counted when its record completed, with no samples, so the end of the
    /// session does not count it again (`LiveMetrics.recordUnseen`).
    public var seenLive: Bool
    /// The culprit function of its stack samples (`StallProfiler`), as the report names it
    /// (`Frame.symbol`); nil without samples or without a symbol.
    public var culprit: String?
    /// What to count of it: a stall whose culprit is named later (`LiveCulpritResolver`) is
    /// reported twice, its number and duration at once, its culprit time once named.
    public var counts: Counts = .all

    /// The parts of a stall live metrics count.
    public enum Counts: Sendable, Equatable {
        /// Its number, duration and culprit time.
        case all
        /// Its number and duration (its culprit time follows).
        case stall
        /// Its culprit time (its number and duration were counted).
        case culprit
    }

    public init(
        pid: Int32, processName: String, tid: Int32, loopName: String, durationNs: UInt64,
        diagnosis: StallDiagnosis.Kind, seenLive: Bool = true, culprit: String? = nil
    ) {
        self.seenLive = seenLive
        self.culprit = culprit
        self.pid = pid
        self.processName = processName
        self.tid = tid
        self.loopName = loopName
        self.durationNs = durationNs
        self.diagnosis = diagnosis
    }
}
