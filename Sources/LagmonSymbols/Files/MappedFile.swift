import Glibc
import LagmonCore

/// An open file of another process's (or a copy of one), read by the unwinder and the
/// symbolizer: `TargetFileSystem` opens the files a target names, so that nothing that process
/// controls can make lagmon block, or read something other than what it maps (only regular files,
/// `O_NONBLOCK` and `O_NOCTTY`, checked with `fstat`). `openRegularFile` opens lagmon's own files
/// (a program it is about to start) the same careful way.
public final class MappedFile: Sendable {
    /// What identifies a mapped file in a memory map: its path as the map shows it, and its inode.
    public struct Key: Hashable, Sendable {
        /// The mapping's path (with the kernel's ` (deleted)` marker, if any).
        public var path: String
        /// The mapping's inode.
        public var inode: UInt64

        /// The key of the file `mapping` maps.
        public init(_ mapping: MemoryMapping) {
            path = mapping.path
            inode = mapping.inode
        }
    }

    /// Read-only, close-on-exec, a regular file.
    let descriptor: Int32
    /// The file's size when it was opened.
    public let size: UInt64

    init(descriptor: Int32, size: UInt64) {
        self.descriptor = descriptor
        self.size = size
    }

    deinit { close(descriptor) }

    /// The regular file `descriptor` reads (a copy lagmon made in memory of a file it must not
    /// read from its server: `ServedFileCopier`), which the result then owns; nil, and closed,
    /// when it is not a regular file.
    public static func adopting(_ descriptor: Int32) -> MappedFile? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return nil
        }
        return MappedFile(descriptor: descriptor, size: UInt64(max(status.st_size, 0)))
    }

    /// The regular file at `path` (whose inode is `inode`, unless 0); nil for anything else.
    public static func openRegularFile(_ path: String, inode: UInt64 = 0) -> MappedFile? {
        var before = stat()
        guard stat(path, &before) == 0, before.st_mode & S_IFMT == S_IFREG,
            inode == 0 || UInt64(before.st_ino) == inode
        else { return nil }
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var after = stat()
        guard fstat(descriptor, &after) == 0, after.st_mode & S_IFMT == S_IFREG, after.st_ino == before.st_ino,
            after.st_dev == before.st_dev
        else {
            close(descriptor)
            return nil
        }
        return MappedFile(descriptor: descriptor, size: UInt64(max(after.st_size, 0)))
    }

    /// A path another program opens this very file by while lagmon holds it open (the external
    /// symbolizer gets it instead of the path the target named).
    public var openPath: String { "/proc/\(getpid())/fd/\(descriptor)" }
}
