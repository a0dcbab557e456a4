/// One program image whose probe attached, as lagmon read it from the channel's process table:
/// the target, an image it exec'd, and with `--follow-children` every descendant.
public struct ProcessRecording: Sendable, Equatable {
    /// Its entry in the channel's process table (loops name it).
    public var index: Int
    /// Process id (an exec keeps it: one pid can have several images).
    public var pid: Int32
    /// Parent process id when the probe attached.
    public var ppid: Int32
    /// Its argv, possibly cut (`commandTruncated`).
    public var command: [String]
    /// Whether the channel's copy of argv was cut.
    public var commandTruncated: Bool
    /// A fork of its parent that did not exec.
    public var forked: Bool
    /// Replaced by an exec (`endNs` is when the new image attached).
    public var execed: Bool
    /// When its probe attached (channel clock).
    public var attachedNs: UInt64
    /// When it ended (exit, exec, or lagmon noticing its death), channel clock; nil while it ran
    /// past the end of the session.
    public var endNs: UInt64?

    public init(
        index: Int, pid: Int32, ppid: Int32, command: [String], commandTruncated: Bool = false, forked: Bool = false,
        execed: Bool = false, attachedNs: UInt64, endNs: UInt64? = nil
    ) {
        self.index = index
        self.pid = pid
        self.ppid = ppid
        self.command = command
        self.commandTruncated = commandTruncated
        self.forked = forked
        self.execed = execed
        self.attachedNs = attachedNs
        self.endNs = endNs
    }
}
