/// CPU one process used over a window (its stat's user plus system time, in clock ticks made
/// nanoseconds).
public struct ProcessCPU: Codable, Sendable, Equatable {
    /// The process.
    public var pid: Int32
    /// Its name (`comm`).
    public var name: String
    /// CPU time it used over the window.
    public var cpuNs: UInt64
    /// The window's length.
    public var windowNs: UInt64

    public init(pid: Int32, name: String, cpuNs: UInt64, windowNs: UInt64) {
        self.pid = pid
        self.name = name
        self.cpuNs = cpuNs
        self.windowNs = windowNs
    }
}
