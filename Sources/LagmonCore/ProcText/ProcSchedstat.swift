/// /proc/<pid>/task/<tid>/schedstat: where a thread's time went, in nanoseconds.
public struct ProcSchedstat: Sendable, Equatable {
    /// Time spent on a CPU.
    public var onCPUNs: UInt64
    /// Time spent runnable, waiting for a CPU.
    public var runDelayNs: UInt64
    /// Time slices run on a CPU.
    public var timeslices: UInt64

    public init(onCPUNs: UInt64, runDelayNs: UInt64, timeslices: UInt64) {
        self.onCPUNs = onCPUNs
        self.runDelayNs = runDelayNs
        self.timeslices = timeslices
    }

    /// Parses `"<onCPUNs> <runDelayNs> <timeslices>\n"`; nil when truncated or garbled.
    public static func parse(_ bytes: [UInt8]) -> ProcSchedstat? {
        guard let fields = ProcText.fields(bytes, count: 3),
            let onCPU = ProcText.decimal(fields[0]),
            let runDelay = ProcText.decimal(fields[1]),
            let timeslices = ProcText.decimal(fields[2])
        else { return nil }
        return ProcSchedstat(onCPUNs: onCPU, runDelayNs: runDelay, timeslices: timeslices)
    }
}
