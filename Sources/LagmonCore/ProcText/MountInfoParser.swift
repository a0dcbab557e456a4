/// Parses the text of /proc/<pid>/mountinfo into the device and file-system type of each mount.
///
/// A line is `id parent major:minor root mountpoint options [optional fields…] - fstype source
/// superoptions` (proc(5)); the optional fields end at a lone `-`. Lines without that shape
/// (truncated reads, garbage) are skipped, never fatal.
public enum MountInfoParser {
    /// One mount: its device (`major << 32 | minor`, decimal in the text) and file-system type.
    public struct Mount: Sendable, Equatable {
        public var device: UInt64
        public var fileSystemType: String

        public init(device: UInt64, fileSystemType: String) {
            self.device = device
            self.fileSystemType = fileSystemType
        }
    }

    /// Every well-formed line of `text`.
    public static func parse(_ text: String) -> [Mount] {
        text.split(separator: "\n", omittingEmptySubsequences: true).compactMap { parseLine($0) }
    }

    /// One line (without its newline), or nil when it is not a mountinfo line.
    public static func parseLine(_ line: Substring) -> Mount? {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 9, let separator = fields[6...].firstIndex(of: "-"), separator + 1 < fields.count else {
            return nil
        }
        let numbers = fields[2].split(separator: ":", omittingEmptySubsequences: false)
        guard numbers.count == 2, let major = UInt32(numbers[0]), let minor = UInt32(numbers[1]) else { return nil }
        return Mount(device: UInt64(major) << 32 | UInt64(minor), fileSystemType: String(fields[separator + 1]))
    }

    /// Whether files of a file system of type `type` are served by a process or over a network
    /// (FUSE, NFS, SMB, 9p, Ceph…): a request to it can wait for ever on a daemon that does not
    /// answer, and no signal lagmon can take ends the wait.
    public static func isServedByAnotherProcess(_ type: String) -> Bool {
        if type.hasPrefix("fuse") || type.hasPrefix("nfs") { return true }
        return remoteTypes.contains(type)
    }

    private static let remoteTypes: Set<String> = [
        "cifs", "smb3", "smbfs", "9p", "ceph", "afs", "glusterfs", "lustre", "virtiofs", "coda", "orangefs",
        "ncpfs", "gfs2", "ocfs2",
    ]
}
