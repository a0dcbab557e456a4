/// One event of the Trace Event Format.
public struct TraceEvent: Encodable, Sendable, Equatable {
    /// What it shows.
    public var name: String
    /// Its category (`stall`, `iteration`, `cpu`).
    public var cat: String?
    /// Phase: `X` complete, `C` counter, `i` instant, `M` metadata, `P` CPU profile.
    public var ph: String
    /// Start, microseconds since the program started.
    public var ts: Double
    /// Duration of a complete event, microseconds.
    public var dur: Double?
    /// The program's pid.
    public var pid: Int32
    /// The thread's tid.
    public var tid: Int32
    /// Scope of an instant event (`t`: its thread).
    public var s: String?
    /// The profile a CPU profile event belongs to (hex text).
    public var id: String?
    /// Details shown when the event is selected.
    public var args: [String: JSONValue]

    public init(
        name: String, cat: String? = nil, ph: String, ts: Double, dur: Double? = nil, pid: Int32, tid: Int32,
        s: String? = nil, id: String? = nil, args: [String: JSONValue] = [:]
    ) {
        self.name = name
        self.cat = cat
        self.ph = ph
        self.ts = ts
        self.dur = dur
        self.pid = pid
        self.tid = tid
        self.s = s
        self.id = id
        self.args = args
    }
}
