/// Where a stalled thread's major page faults landed, from one fault-address record per fault
/// (perf's major-fault event) kept from the stall's first sample to its end.
public struct MajorFaultSites: Sendable, Equatable {
    /// Faults the kernel reported over the window, including `lost` ones.
    public var recorded: UInt64
    /// Faults reported as lost (the record buffer was full): counted, not placed.
    public var lost: UInt64
    /// The files the placed faults hit, most first.
    public var files: [PageFaultFile]
    /// Why the addresses could not be recorded (perf refused), when it did; `files` is empty then.
    public var unavailable: String?

    public init(recorded: UInt64, lost: UInt64, files: [PageFaultFile], unavailable: String? = nil) {
        self.recorded = recorded
        self.lost = lost
        self.files = files
        self.unavailable = unavailable
    }

    /// The sites of a thread whose fault addresses could not be recorded, and why.
    public static func unavailable(_ reason: String) -> MajorFaultSites {
        MajorFaultSites(recorded: 0, lost: 0, files: [], unavailable: reason)
    }
}
