/// One process of the session: the target, and with `--follow-children` each descendant whose
/// probe attached. Loops and stalls name it by `pid`.
public struct ProcessReport: Codable, Sendable, Equatable {
    /// Process id.
    public var pid: Int32
    /// Its parent's pid when it started being watched; absent when its probe never attached.
    public var ppid: Int32?
    /// Its command line (argv) as it last was: after an exec, the new program's.
    public var command: [String]
    /// Whether `command` was cut (the channel keeps about 200 bytes of it).
    public var commandTruncated: Bool
    /// When it started being watched (its first probe attached), since the target started.
    public var startNs: UInt64
    /// When it ended, since the target started; absent when it outlived the session.
    public var endNs: UInt64?
    /// Times it exec'd another program while watched.
    public var execs: Int
    /// Loops watched in it.
    public var loopCount: Int
    /// Stalls on those loops.
    public var stallCount: Int

    public init(
        pid: Int32, ppid: Int32?, command: [String], commandTruncated: Bool = false, startNs: UInt64,
        endNs: UInt64? = nil, execs: Int = 0, loopCount: Int = 0, stallCount: Int = 0
    ) {
        self.pid = pid
        self.ppid = ppid
        self.command = command
        self.commandTruncated = commandTruncated
        self.startNs = startNs
        self.endNs = endNs
        self.execs = execs
        self.loopCount = loopCount
        self.stallCount = stallCount
    }
}
