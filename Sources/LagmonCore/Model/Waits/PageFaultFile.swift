/// Major page faults a thread took in one mapped file (or kind of memory) during a stall.
public struct PageFaultFile: Codable, Sendable, Equatable {
    /// The mapped file's path, or `[anonymous]` (swapped-out memory), a kernel pseudo-path
    /// (`[heap]`, `[stack]`), `[unmapped]` (no longer mapped when lagmon looked).
    public var path: String
    /// Faults whose address lay in it.
    public var faults: UInt64

    public init(path: String, faults: UInt64) {
        self.path = path
        self.faults = faults
    }
}
