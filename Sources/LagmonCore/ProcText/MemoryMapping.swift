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
    /// The mapped file's inode number (0 for anonymous memory and pseudo-mappings): what tells
    /// the file a path names now from the one that was mapped.
    public var inode: UInt64
    /// The device of the mapped file's file system, `major << 32 | minor` (0 for anonymous
    /// memory): what tells, from /proc/<pid>/mountinfo and without touching the file, which file
    /// system serves it (`FileSystemServers`).
    public var device: UInt64

    public init(
        start: UInt64, end: UInt64, permissions: String, fileOffset: UInt64, path: String, inode: UInt64 = 0,
        device: UInt64 = 0
    ) {
        self.start = start
        self.end = end
        self.permissions = permissions
        self.fileOffset = fileOffset
        self.path = path
        self.inode = inode
        self.device = device
    }
}
