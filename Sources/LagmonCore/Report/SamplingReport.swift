/// How stack sampling went over the whole session.
public struct SamplingReport: Codable, Sendable, Equatable {
    /// Stack samples taken.
    public var samples: Int
    /// Median time the sampled thread was stopped per sample.
    public var pauseNsP50: UInt64
    /// 99th percentile of that.
    public var pauseNsP99: UInt64
    /// The longest stop.
    public var pauseNsMax: UInt64
    /// Median end-to-end cost of a sample (pause plus unwinding from the copy).
    public var sampleNsP50: UInt64
    /// Samples whose unwind failed.
    public var unwindErrors: Int
    /// Samples cut at the depth cap.
    public var truncated: Int
    /// Fraction of samples whose unwind reached the thread's entry (0 with no samples).
    public var completeness: Double
    /// Why there are no stacks, when stack sampling was impossible (ptrace refused, …).
    public var unavailable: String?
    /// Samples requested but not taken: the thread exited mid-sample, or did not stop within
    /// 20 ms (uninterruptible sleep). Absent in reports of earlier lagmon builds.
    public var samplesLost: Int?
    /// Samples of threads of a Python process, whose interpreter frames lagmon read while the
    /// thread was stopped. Absent when no sampled process ran an interpreter lagmon reads.
    public var interpreterSamples: Int?
    /// Median time, within the pause, spent reading those frames (the pause Python frames add).
    public var interpreterReadNsP50: UInt64?
    /// Samples that hold only the instruction pointer because the target's memory could not be
    /// read in time (a read slept past its bound: a page behind a userfaultfd nobody answers, a
    /// stuck FUSE file). Absent when none.
    public var memoryUnreadableSamples: Int?

    public init(
        samples: Int, pauseNsP50: UInt64, pauseNsP99: UInt64, pauseNsMax: UInt64, sampleNsP50: UInt64,
        unwindErrors: Int, truncated: Int, completeness: Double, unavailable: String? = nil, samplesLost: Int? = 0
    ) {
        self.samples = samples
        self.pauseNsP50 = pauseNsP50
        self.pauseNsP99 = pauseNsP99
        self.pauseNsMax = pauseNsMax
        self.sampleNsP50 = sampleNsP50
        self.unwindErrors = unwindErrors
        self.truncated = truncated
        self.completeness = completeness
        self.unavailable = unavailable
        self.samplesLost = samplesLost
    }
}
