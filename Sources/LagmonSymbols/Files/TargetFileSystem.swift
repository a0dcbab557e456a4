import CLagmonLinux
import Glibc
import LagmonCore

/// The file system as one target process sees it: every file lagmon opens because the target
/// named it (the images of its memory map, its interpreter, its perf map) is opened here.
///
/// A process in a container has its own root and mount namespace, so the paths its memory map
/// shows name files of that root, which the host may not have, or have as other files. They are
/// opened below `/proc/<pid>/root`, held open as a directory from the start (it stays valid after
/// the process exits, for the symbolizer), with openat2's `RESOLVE_IN_ROOT`: an absolute symlink
/// or a `..` inside the container resolves inside it, as it would for the process, never to a
/// host file (a container may plant `/usr/bin/python3 -> /etc/shadow`); without openat2 (Linux
/// before 5.6), `TargetPathWalk` resolves the path the same way, one component at a time. Only
/// regular files are opened (non-blocking, no controlling terminal), within a size bound, and
/// only with the inode the mapping names.
///
/// The paths of /proc/<pid>/maps are as *lagmon* sees them when it can reach the file (the kernel
/// prints them from the reader's root): a chroot's files show with the chroot's directory in
/// front, which `rootPath` names and `pathInRoot` strips; a container with a mount namespace of
/// its own shows paths of its own root. Either way lagmon opens the path inside the process's
/// root, never from its own.
///
/// Pids in file names are the process's own: `namespacedPid`, the last NSpid of its status.
public final class TargetFileSystem: Sendable {
    /// The process (nil: lagmon's own).
    public let pid: Int32?
    /// The process's pid in its own PID namespace (what its getpid() returns, and what it names
    /// its perf map after); `pid` when it shares lagmon's namespace or the kernel does not say.
    public let namespacedPid: Int32
    /// An O_PATH descriptor of the process's root directory; -1 when it could not be opened.
    private let root: Int32
    /// Why the root could not be opened (an errno), 0 when it was.
    private let rootError: Int32
    /// The process's root as lagmon sees it (the target of the `/proc/<pid>/root` link): `/`
    /// unless the process runs chrooted below lagmon's root.
    public let rootPath: String

    /// The largest image opened (bounds what a hostile file can make lagmon read).
    public static let imageSizeLimit: UInt64 = 2 << 30

    /// The file system of process `pid` (lagmon's own when nil).
    public init(pid: Int32?) {
        self.pid = pid
        let rootLink = pid.map { "/proc/\($0)/root" } ?? "/"
        let descriptor = Glibc.open(rootLink, lagmon_o_path() | O_DIRECTORY | O_CLOEXEC)
        root = descriptor
        rootError = descriptor < 0 ? errno : 0
        rootPath = pid == nil ? "/" : Self.linkTarget(rootLink) ?? "/"
        let status = pid.map { ProcSelfMaps.text("/proc/\($0)/status") } ?? ""
        namespacedPid = Self.namespacedPid(status: status) ?? pid ?? getpid()
    }

    deinit { if root >= 0 { close(root) } }

    /// The path of a /proc/<pid>/maps entry inside the process's root: without the process's
    /// root directory in front, when the kernel printed it from lagmon's root (a chroot).
    public func pathInRoot(_ mapsPath: String) -> String {
        guard rootPath != "/", mapsPath.hasPrefix(rootPath + "/") else { return mapsPath }
        return String(mapsPath.dropFirst(rootPath.count))
    }

    /// The target of the symlink at `path` (at most PATH_MAX bytes).
    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The last pid of the `NSpid:` line of a /proc status file (the innermost namespace's).
    public static func namespacedPid(status: String) -> Int32? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("NSpid:") }) else { return nil }
        let pids = line.dropFirst("NSpid:".count).split(whereSeparator: { $0 == " " || $0 == "\t" })
        return pids.last.flatMap { Int32($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Calls `body` with the descriptor of the process's root (-1 when it could not be opened),
    /// valid only during the call: for a child process that opens a file below it
    /// (`lagmon_copy_file_in_child`).
    public func withRootDescriptor<Result>(_ body: (Int32) -> Result) -> Result {
        withExtendedLifetime(self) { body(root) }
    }

    /// The file `mapping` maps: through `/proc/<pid>/map_files` (the very file mapped, even
    /// deleted or replaced since; needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE), else by its
    /// path in the process's root while that still names the mapped inode.
    public func open(_ mapping: MemoryMapping) -> Result<MappedFile, TargetFileProblem> {
        guard mapping.isFile else { return .failure(problem(mapping.path, "not a mapped file")) }
        let process = pid.map { String($0) } ?? "self"
        let range = String(mapping.start, radix: 16) + "-" + String(mapping.end, radix: 16)
        let (mapFile, mapFileError) = openMapFile("/proc/\(process)/map_files/\(range)")
        if let mapFile, case .success(let file) = adopt(mapFile, path: mapping.path, inode: mapping.inode) {
            return .success(file)
        }
        guard !mapping.isDeleted, let path = mapping.filePath else {
            let why = mapFileError == 0 ? "not the mapped file" : Self.name(mapFileError)
            return .failure(
                problem(
                    mapping.path,
                    "deleted since it was mapped, and /proc/\(process)/map_files refused (\(why); it needs CAP_SYS_ADMIN)"
                ))
        }
        return openFile(pathInRoot(path), inode: mapping.inode)
    }

    /// A map_files entry, opened only when it is a regular file (a device mapping is never
    /// opened: opening one can act); the errno when it was not.
    private func openMapFile(_ path: String) -> (Int32?, Int32) {
        var status = stat()
        guard stat(path, &status) == 0 else { return (nil, errno) }
        guard status.st_mode & S_IFMT == S_IFREG else { return (nil, ENXIO) }
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        return descriptor < 0 ? (nil, errno) : (descriptor, 0)
    }

    /// The regular file at `path` as the process names it (whose inode is `inode`, unless 0),
    /// at most `sizeLimit` bytes; `noFollow` refuses a symlink as the last component.
    public func openFile(
        _ path: String, inode: UInt64 = 0, sizeLimit: UInt64 = imageSizeLimit, noFollow: Bool = false
    ) -> Result<MappedFile, TargetFileProblem> {
        guard root >= 0 else {
            let rootPath = pid.map { "/proc/\($0)/root" } ?? "/"
            return .failure(problem(path, "\(rootPath) could not be opened (\(Self.name(rootError)))"))
        }
        guard path.hasPrefix("/") else { return .failure(problem(path, "not an absolute path")) }
        let flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | (noFollow ? O_NOFOLLOW : 0)
        var descriptor = lagmon_open_in_root(root, path, flags)
        if descriptor == -ENOSYS { descriptor = TargetPathWalk.open(path, below: root, flags: flags) }
        guard descriptor >= 0 else { return .failure(problem(path, Self.reason(openError: -descriptor))) }
        return adopt(descriptor, path: path, inode: inode, sizeLimit: sizeLimit)
    }

    /// `descriptor` as a `MappedFile` when it reads a regular file with `inode` (unless 0) of at
    /// most `sizeLimit` bytes; closed otherwise.
    private func adopt(_ descriptor: Int32, path: String, inode: UInt64, sizeLimit: UInt64 = imageSizeLimit)
        -> Result<MappedFile, TargetFileProblem>
    {
        var status = stat()
        let reason: String?
        if fstat(descriptor, &status) != 0 {
            reason = "fstat failed (\(Self.name(errno)))"
        } else if status.st_mode & S_IFMT != S_IFREG {
            reason = "not a regular file"
        } else if inode != 0 && UInt64(status.st_ino) != inode {
            reason = "another file than the one mapped (inode \(status.st_ino), the mapping's \(inode))"
        } else if UInt64(max(status.st_size, 0)) > sizeLimit {
            reason = "larger than \(sizeLimit >> 20) MiB"
        } else {
            reason = nil
        }
        guard let reason else { return .success(MappedFile(descriptor: descriptor, size: UInt64(status.st_size))) }
        close(descriptor)
        return .failure(problem(path, reason))
    }

    private func problem(_ path: String, _ reason: String) -> TargetFileProblem {
        TargetFileProblem(pid: pid ?? getpid(), path: path, reason: reason)
    }

    /// The reason of a file that is not there (a perf map not written, say).
    public static let missingReason = "no such file in the process's root (ENOENT)"

    /// What an open's errno means here.
    static func reason(openError: Int32) -> String {
        switch openError {
        case ENOENT: missingReason
        case ELOOP: "a symlink the process's root does not resolve safely (ELOOP)"
        case ENXIO: "not a regular file (ENXIO)"
        default: "cannot be opened (\(name(openError)))"
        }
    }

    /// An errno's symbolic name (`EACCES`), or its number.
    static func name(_ code: Int32) -> String {
        let names: [Int32: String] = [
            EPERM: "EPERM", ENOENT: "ENOENT", EACCES: "EACCES", ELOOP: "ELOOP", ENOTDIR: "ENOTDIR", EXDEV: "EXDEV",
            ENXIO: "ENXIO", EMFILE: "EMFILE", ENFILE: "ENFILE", ENAMETOOLONG: "ENAMETOOLONG", ESRCH: "ESRCH",
            EAGAIN: "EAGAIN", EINVAL: "EINVAL", ENOSYS: "ENOSYS", EIO: "EIO",
        ]
        return names[code] ?? "errno \(code)"
    }
}
