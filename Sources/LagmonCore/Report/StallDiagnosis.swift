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

    /// The diagnosis of a stall without stack samples.
    public static let noSamples = StallDiagnosis(kind: .unknown, text: "no stack samples")
}
