/// One line of /proc/<pid>/maps.
public struct MemoryMapping: Sendable, Equatable {
    /// First address.
    public var start: UInt64
    /// One past the last address.
    public var end: UInt64
    /// `r-xp` and the like.
    public var permissions: String
    /// Offset of the mapping in its file.
    public var fileOffset: UInt64
    /// The file's path; empty for anonymous memory; `[stack]`, `[heap]`, `[vdso]` for the
    /// kernel's pseudo-paths.
    public var path: String

    public init(start: UInt64, end: UInt64, permissions: String, fileOffset: UInt64, path: String) {
        self.start = start
        self.end = end
        self.permissions = permissions
        self.fileOffset = fileOffset
        self.path = path
    }
}
