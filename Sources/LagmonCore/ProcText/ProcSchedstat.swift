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
        parse(bytes[...])
    }

    /// The same over part of a buffer, allocating nothing: the per-thread CPU reader parses one
    /// per thread and pass, straight from the buffer it reads into.
    public static func parse(_ bytes: ArraySlice<UInt8>) -> ProcSchedstat? {
        guard bytes.last == ProcText.newline else { return nil }
        let line = bytes.dropLast()
        // Each field is a decimal, which holds no space: a fourth field or a doubled space
        // leaves a space (or nothing) in one of the three and is refused by `decimal`.
        guard let first = line.firstIndex(of: ProcText.space),
            let second = line[(first + 1)...].firstIndex(of: ProcText.space),
            let onCPU = ProcText.decimal(line[..<first]),
            let runDelay = ProcText.decimal(line[(first + 1)..<second]),
            let timeslices = ProcText.decimal(line[(second + 1)...])
        else { return nil }
        return ProcSchedstat(onCPUNs: onCPU, runDelayNs: runDelay, timeslices: timeslices)
    }
}
