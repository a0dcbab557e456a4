/// One thread's line of /proc/<pid>/task/<tid>/stat: the fields lagmon uses.
public struct ProcTaskStat: Sendable, Equatable {
    /// Kernel thread id (field 1).
    public var tid: Int32
    /// Thread name (field 2, without its parentheses), invalid UTF-8 replaced by U+FFFD.
    public var comm: String
    /// Scheduler state (field 3); letters lagmon does not know map to `.unknown`.
    public var state: SchedulerState
    /// CPU time in user mode, in clock ticks (field 14).
    public var utimeTicks: UInt64
    /// CPU time in kernel mode, in clock ticks (field 15).
    public var stimeTicks: UInt64
    /// When the thread started, in clock ticks since boot (field 22).
    public var startTimeTicks: UInt64
    /// The CPU it last ran on (field 39).
    public var processor: Int32
    /// Major page faults so far: faults that had to read a page from a file (field 12).
    public var majorFaults: UInt64 = 0

    public init(
        tid: Int32, comm: String, state: SchedulerState, utimeTicks: UInt64, stimeTicks: UInt64,
        startTimeTicks: UInt64, processor: Int32
    ) {
        self.tid = tid
        self.comm = comm
        self.state = state
        self.utimeTicks = utimeTicks
        self.stimeTicks = stimeTicks
        self.startTimeTicks = startTimeTicks
        self.processor = processor
    }

    /// User plus system time in clock ticks (saturating).
    public var cpuTicks: UInt64 {
        let (sum, overflow) = utimeTicks.addingReportingOverflow(stimeTicks)
        return overflow ? .max : sum
    }

    // Positions after the comm: field n of proc(5) is token n - 3. Sorted.
    private static let wantedTokens = [0, 9, 11, 12, 19, 36]
    private static let processorToken = 36

    /// Parses the file's contents; nil when it is truncated or garbled.
    ///
    /// The comm is whatever lies between the first `(` and the LAST `)`: a thread may name itself
    /// `a) R 1 (`, but the fields after the comm are numbers and never contain `)`. The line
    /// must still hold the processor field followed by a separator, so a read cut short inside a
    /// number is refused instead of yielding a shorter number.
    public static func parse(_ bytes: [UInt8]) -> ProcTaskStat? {
        guard let open = bytes.firstIndex(of: ProcText.openParenthesis),
            let close = bytes.lastIndex(of: ProcText.closeParenthesis),
            open >= 2, close > open, bytes[open - 1] == ProcText.space,
            let tid = ProcText.decimal(bytes[..<(open - 1)]).flatMap({ Int32(exactly: $0) }), tid > 0,
            let tokens = wantedTokens(after: bytes[(close + 1)...]),
            let state = state(tokens[0]),
            let majorFaults = ProcText.decimal(tokens[1]),
            let utime = ProcText.decimal(tokens[2]),
            let stime = ProcText.decimal(tokens[3]),
            let startTime = ProcText.decimal(tokens[4]),
            let processor = ProcText.decimal(tokens[5]).flatMap({ Int32(exactly: $0) })
        else { return nil }
        let comm = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
        var stat = ProcTaskStat(
            tid: tid, comm: comm, state: state, utimeTicks: utime, stimeTicks: stime, startTimeTicks: startTime,
            processor: processor)
        stat.majorFaults = majorFaults
        return stat
    }

    /// The wanted space-separated fields after the comm's `)`, in order; nil when the line ends
    /// before the processor field's separator (a space, or the line's final newline). Fields
    /// after the processor are not looked at.
    private static func wantedTokens(after rest: ArraySlice<UInt8>) -> [ArraySlice<UInt8>]? {
        guard rest.first == ProcText.space else { return nil }
        var tokens: [ArraySlice<UInt8>] = []
        tokens.reserveCapacity(wantedTokens.count)
        var token = 0
        var start = rest.startIndex + 1
        for index in start..<rest.endIndex {
            let byte = rest[index]
            let ends = byte == ProcText.space || (byte == ProcText.newline && index == rest.endIndex - 1)
            guard ends else { continue }
            if token == wantedTokens[tokens.count] { tokens.append(rest[start..<index]) }
            if token == processorToken { return tokens }
            token += 1
            start = index + 1
        }
        return nil
    }

    /// One ASCII letter; letters of other kernels' states (`W`, `K`, …) are `.unknown`.
    private static func state(_ token: ArraySlice<UInt8>) -> SchedulerState? {
        guard token.count == 1, let letter = token.first,
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(letter)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(letter)
        else { return nil }
        return SchedulerState(rawValue: String(UnicodeScalar(letter))) ?? .unknown
    }
}
