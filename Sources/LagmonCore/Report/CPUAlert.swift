/// A thread that stayed above the `--cpu-alert` level.
public struct CPUAlert: Codable, Sendable, Equatable {
    /// When the alert fired, since the target started.
    public var atNs: UInt64
    /// Its CPU use over the intervals that triggered the alert.
    public var cpuPct: Double
    /// Its stack at that moment, root first; empty when it could not be sampled.
    public var frames: [Frame]

    public init(atNs: UInt64, cpuPct: Double, frames: [Frame]) {
        self.atNs = atNs
        self.cpuPct = cpuPct
        self.frames = frames
    }
}
