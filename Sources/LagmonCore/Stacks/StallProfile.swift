/// A unique stack seen during a stall and how many samples showed it.
public struct StackCount: Codable, Sendable, Equatable {
    /// Samples with exactly this stack.
    public var count: Int
    /// Frames, root (thread entry) first.
    public var frames: [Frame]

    public init(count: Int, frames: [Frame]) {
        self.count = count
        self.frames = frames
    }
}

/// A node of a merged call tree: a frame and the samples that passed through it.
public struct CallTreeNode: Codable, Sendable, Equatable {
    /// The frame's function (or module+offset).
    public var name: String
    /// Its module.
    public var module: String
    /// Samples whose stack passes through this node.
    public var count: Int
    /// Callees, most samples first.
    public var children: [CallTreeNode]

    public init(name: String, module: String, count: Int, children: [CallTreeNode]) {
        self.name = name
        self.module = module
        self.count = count
        self.children = children
    }
}

/// Why a stall happened, in one line and as a machine-readable kind.
public struct StallDiagnosis: Codable, Sendable, Equatable {
    /// What kept the loop busy.
    public enum Kind: String, Codable, Sendable {
        /// Running on a CPU (computing).
        case cpu
        /// Runnable but waiting for a CPU.
        case runqueue
        /// Blocked in a system call (other than the ones below).
        case syscall
        /// Sleeping on purpose (nanosleep, clock_nanosleep, …).
        case sleep
        /// Waiting on a lock (futex).
        case lock
        /// Uninterruptible I/O (D state).
        case io
        /// No samples to tell.
        case unknown
    }

    /// The kind.
    public var kind: Kind
    /// One line for people: `CPU-bound in decodeImage(_:)`, `blocked 240 ms in read(fd 7 → pipe)`.
    public var text: String

    public init(kind: Kind, text: String) {
        self.kind = kind
        self.text = text
    }
}

/// Stalls with the same application code at the top of their stacks, grouped.
public struct FingerprintReport: Codable, Sendable, Equatable {
    /// Stable identifier: a hash of `frames` (module and symbol only, no addresses).
    public var id: String
    /// The top application frames that define the group, innermost first, as `module`symbol`.
    public var frames: [String]
    /// Stalls in the group.
    public var count: Int
    /// Their summed duration.
    public var totalNs: UInt64
    /// The longest one.
    public var worstNs: UInt64
    /// Their ids.
    public var stallIds: [Int]

    public init(id: String, frames: [String], count: Int, totalNs: UInt64, worstNs: UInt64, stallIds: [Int]) {
        self.id = id
        self.frames = frames
        self.count = count
        self.totalNs = totalNs
        self.worstNs = worstNs
        self.stallIds = stallIds
    }
}

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
