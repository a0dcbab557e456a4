/// Where one mapping of an executable file (or the vDSO) lay in a watched process, for the
/// addresses of the stacks sampled in it: what a profile needs to map an address back to an
/// offset in the file (pprof's `Mapping`).
public struct ImageMapping: Codable, Sendable, Hashable {
    /// The process that mapped it.
    public var pid: Int32
    /// The file name frames show as their `module` (`libc.so.6`, `[vdso]`).
    public var module: String
    /// The file's path (`[vdso]` for the vDSO).
    public var path: String
    /// The mapping's first address.
    public var start: UInt64
    /// One past its last address.
    public var limit: UInt64
    /// Where the mapping starts in the file.
    public var fileOffset: UInt64
    /// The file's GNU build id, in hex; nil when it has none or could not be read.
    public var buildId: String?

    public init(
        pid: Int32, module: String, path: String, start: UInt64, limit: UInt64, fileOffset: UInt64,
        buildId: String? = nil
    ) {
        self.pid = pid
        self.module = module
        self.path = path
        self.start = start
        self.limit = limit
        self.fileOffset = fileOffset
        self.buildId = buildId
    }

    /// Whether `address` of process `pid` lies in the mapping.
    public func contains(_ address: UInt64, pid: Int32) -> Bool {
        self.pid == pid && address >= start && address < limit
    }
}
