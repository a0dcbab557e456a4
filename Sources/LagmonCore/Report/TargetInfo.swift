import FoundationEssentials

/// The monitored process and how it ended.
public struct TargetInfo: Codable, Sendable, Equatable {
    /// The command line as given (argv).
    public var command: [String]
    /// Its process id.
    public var pid: Int32
    /// The status lagmon passed on: the exit code, or 128 + N when killed by signal N. Nil when
    /// lagmon attached to the process (`attached`): its status is not lagmon's to know.
    public var exitStatus: Int32?
    /// The signal that killed it, if one did.
    public var signal: Int32?
    /// That signal's name (`SIGSEGV`, …).
    public var signalName: String?
    /// When it started, ISO 8601 with milliseconds, UTC.
    public var startedAt: String
    /// CLOCK_MONOTONIC at start, to line stalls up with other tools' monotonic timestamps
    /// (a stall's absolute time is `monotonicStartNs + startNs`).
    public var monotonicStartNs: UInt64
    /// From start to exit.
    public var wallNs: UInt64

    /// `startedAt` as nanoseconds since the Unix epoch (millisecond precision); nil when
    /// `startedAt` does not parse.
    public var startedAtUnixNs: UInt64? {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        // A saved report can say anything: a date past year 2554 does not fit, and is nil, not a trap.
        guard let date = try? style.parse(startedAt), date.timeIntervalSince1970 >= 0,
            let milliseconds = UInt64(exactly: (date.timeIntervalSince1970 * 1_000).rounded())
        else { return nil }
        let (nanoseconds, overflow) = milliseconds.multipliedReportingOverflow(by: 1_000_000)
        return overflow ? nil : nanoseconds
    }
    /// `true` when lagmon attached to the running process (`lagmon attach`) instead of starting
    /// it: `startedAt`, `monotonicStartNs` and `wallNs` then cover the session, not the
    /// process's life. Nil (absent) when lagmon started it.
    public var attached: Bool?
    /// For an attached process: whether it ended while lagmon watched it. Nil otherwise.
    public var exited: Bool?
    /// For an attached process found by `--name` or `--pid-file`: how many times it exited and
    /// lagmon attached to the process that replaced it (each one is in `processes`, `pid` is
    /// the first's, `exited` the last's). Nil (absent) when it never restarted.
    public var restarts: Int?

    public init(
        command: [String], pid: Int32, exitStatus: Int32?, signal: Int32? = nil,
        signalName: String? = nil, startedAt: String, monotonicStartNs: UInt64, wallNs: UInt64
    ) {
        self.command = command
        self.pid = pid
        self.exitStatus = exitStatus
        self.signal = signal
        self.signalName = signalName
        self.startedAt = startedAt
        self.monotonicStartNs = monotonicStartNs
        self.wallNs = wallNs
    }
}
