/// One look at a running process (`lagmon dump PID`): each shown thread's state, CPU and stack,
/// taken once, the process left running and untraced. Its JSON form (`lagmon dump --json`) is
/// documented field by field in docs/dump.md.
public struct ProcessDump: Codable, Sendable, Equatable {
    /// The document's format and version: `lagmon-dump/1`.
    public var format = "lagmon-dump/1"
    /// The process id.
    public var pid: Int32
    /// The process's name (comm).
    public var name: String
    /// Its command line.
    public var command: [String]
    /// The machine's host name.
    public var host: String
    /// When the look began, in nanoseconds since the Unix epoch.
    public var takenAtUnixNs: UInt64
    /// How long lagmon watched the threads' /proc state to tell waiting from busy and to measure CPU.
    public var lookNs: UInt64
    /// The shown threads: the main thread first, then by thread id.
    public var threads: [ThreadDump]
    /// How many threads the process had at the look.
    public var threadCount: Int
    /// Why there are no stacks (ptrace refused), with the fix; nil when stacks were taken.
    public var stacksUnavailable: String?
    /// Files the process names that lagmon could not read (its stacks lack their names), and
    /// why; nil when every one was read.
    public var unreadableFiles: [TargetFileProblem]?
    /// The most threads a look watches, when the process had more (the rest were not looked
    /// at); nil when every thread was.
    public var watchedThreadLimit: Int?
    /// Whether every watched thread was to be shown (`--all`).
    public var allThreads: Bool?

    public init(
        pid: Int32, name: String, command: [String], host: String, takenAtUnixNs: UInt64, lookNs: UInt64,
        threads: [ThreadDump], threadCount: Int, stacksUnavailable: String?
    ) {
        self.pid = pid
        self.name = name
        self.command = command
        self.host = host
        self.takenAtUnixNs = takenAtUnixNs
        self.lookNs = lookNs
        self.threads = threads
        self.threadCount = threadCount
        self.stacksUnavailable = stacksUnavailable
    }
}
