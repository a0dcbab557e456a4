/// What took a stalled loop's thread off the CPU during the stall, measured between the /proc
/// readings at its first sample request and at its end: time runnable but waiting for a CPU (schedstat), its major page faults, and
/// when it waited, the machine's busiest other processes over that window.
public struct ContentionReport: Codable, Sendable, Equatable {
    /// From the busy period's opening /proc reading (when its first sample was asked for) to
    /// its closing one (when it ended); without those, from its first to its last sample with a
    /// thread state.
    public var spanNs: UInt64
    /// Of that, the time the thread was runnable but waited for a CPU (schedstat's second field),
    /// at most `spanNs - onCPUNs`.
    public var runQueueNs: UInt64
    /// `runQueueNs / spanNs`, at most 1.
    public var runQueueShare: Double
    /// Of that, the time the thread ran on a CPU (schedstat's first field).
    public var onCPUNs: UInt64
    /// Major page faults of the thread over the span (faults that read a page from a file);
    /// absent when unread.
    public var majorFaults: UInt64?
    /// Major page faults the kernel reported one by one (perf) from the stall's first sample to
    /// its end: what `majorFaultFiles` shares out. Absent when not measured.
    public var majorFaultsRecorded: UInt64?
    /// The files those faults hit, most first; at most 3. Absent when none were recorded.
    public var majorFaultFiles: [PageFaultFile]?
    /// Why the faults' files were not measured (perf events refused); absent when they were.
    public var majorFaultFilesUnavailable: String?
    /// When the thread waited for a CPU: the processes (other than the target) that used the
    /// most CPU over the window lagmon measured them in, most first; at most 5. Absent otherwise.
    public var busiestOthers: [ProcessCPU]?

    public init(spanNs: UInt64, runQueueNs: UInt64, onCPUNs: UInt64) {
        self.spanNs = spanNs
        // schedstat adds a wait when the thread gets a CPU again, so a wait under way at the
        // opening reading is counted whole: what it adds past the span is not the stall's.
        self.runQueueNs = min(runQueueNs, spanNs - min(onCPUNs, spanNs))
        self.runQueueShare = spanNs == 0 ? 0 : Double(self.runQueueNs) / Double(spanNs)
        self.onCPUNs = onCPUNs
    }
}
