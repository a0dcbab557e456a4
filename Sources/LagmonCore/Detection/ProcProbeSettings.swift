/// How a loop lagmon cannot enter was watched from /proc (`ProcLoopProbe`), and why.
public struct ProcProbeSettings: Sendable, Equatable {
    /// Readings every millisecond unless told otherwise: stall times within about half of it.
    public static let defaultIntervalNs: UInt64 = 1_000_000

    /// Time between two readings of the watched thread.
    public var intervalNs: UInt64
    /// Why there was no probe inside the target, for people: `lagmon attached to a running
    /// process`, `the target is statically linked`.
    public var reason: String
    /// Why the thread could not be watched at all (its /proc files were refused), if so.
    public var unavailable: String?

    public init(intervalNs: UInt64, reason: String, unavailable: String? = nil) {
        self.intervalNs = intervalNs
        self.reason = reason
        self.unavailable = unavailable
    }
}
