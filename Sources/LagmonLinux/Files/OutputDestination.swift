import Glibc

/// Where one output named on the command line goes, decided before anything runs: an open
/// descriptor, a device or FIFO written in place, or a regular file replaced atomically.
///
/// A path that names a stream (`-`, `/dev/stdout`, `/dev/fd/2`) is written to the descriptor
/// lagmon already has, at its current offset; a character device or FIFO (`/dev/null`, a named
/// pipe), reached directly or through symbolic links, is opened and written in place; anything
/// else must be a regular file (existing, or creatable in an existing writable directory), which
/// is replaced atomically where the links lead, never the link itself.
public enum OutputDestination: Sendable, Equatable {
    /// An open descriptor: stdout for `-`, or the one a `/dev/stdout`-style path names.
    case descriptor(Int32)
    /// A character device or FIFO, opened for writing (no truncation, no replacement).
    case inPlace(path: String)
    /// A regular file, replaced by rename: `path` is where the links lead; `mode` the permission
    /// bits the new file gets (the old file's, or 0666 less the umask for a new one).
    case replace(path: String, mode: UInt32)

    /// Why a path cannot take an output; each description is the end of one line that starts
    /// "cannot write X to PATH: ".
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case empty
        case nameTooLong(component: Int)
        case pathTooLong(Int)
        case isDirectory
        case notAFile(kind: String)
        case missingDirectory(String)
        case notADirectory(String)
        case unwritableDirectory(String)
        case unwritable(String)
        case closedDescriptor(Int32)
        case fifoWithoutReader

        public var description: String {
            switch self {
            case .empty: "the path is empty"
            case .nameTooLong(let bytes):
                "a name in it is \(bytes) bytes long, more than the \(NAME_MAX) a file name may have; choose a shorter name"
            case .pathTooLong(let bytes):
                "the path is \(bytes) bytes long, more than the \(PATH_MAX - 1) a path may have; choose a shorter path"
            case .isDirectory: "it is a directory; give a file name in it"
            case .notAFile(let kind):
                "it is a \(kind); give a regular file, a FIFO or a character device"
            case .missingDirectory(let directory):
                "directory \(directory) does not exist; create it or choose another path"
            case .notADirectory(let directory): "\(directory) is not a directory; choose another path"
            case .unwritableDirectory(let directory): "directory \(directory) is not writable; choose another path"
            case .unwritable(let reason): "\(reason); choose another path"
            case .closedDescriptor(let fd): "descriptor \(fd) is not open; redirect it, or choose a file"
            case .fifoWithoutReader:
                "it is a FIFO with no reader, and lagmon would wait for one for ever; start its reader first, or choose a file"
            }
        }
    }

    /// The destination for `path`, checked now (before the program runs); throws the problem
    /// that would stop it being written later.
    public static func resolve(_ path: String) throws(Problem) -> OutputDestination {
        if let fd = path == "-" ? STDOUT_FILENO : streamDescriptor(path) {
            // A standard descriptor closed at start holds /dev/null only to keep its number.
            guard fcntl(fd, F_GETFD) >= 0, !StandardDescriptors.closedAtStart.contains(fd) else {
                throw .closedDescriptor(fd)
            }
            return .descriptor(fd)
        }
        try checkLengths(path)
        var target = stat()
        if stat(path, &target) == 0 { return try existing(path, target) }
        let code = errno
        var link = stat()
        if lstat(path, &link) == 0 {
            // A symbolic link to nothing: the file is created where it points, like `>` would.
            return try missing(resolvedLinkTarget(path) ?? path)
        }
        // ENOTDIR: a file where a directory should be; the directory check names it.
        guard code == ENOENT || code == ENOTDIR else { throw .unwritable(String(cString: strerror(code))) }
        return try missing(path)
    }

    /// Writes `bytes` here: to the descriptor, in place, or by atomic replacement.
    public func write(_ bytes: [UInt8]) throws {
        switch self {
        case .descriptor(let fd): try AtomicFile.writeAll(bytes, to: fd)
        case .inPlace(let path): try AtomicFile.writeInPlace(bytes, to: path)
        case .replace(let path, let mode): try AtomicFile.write(bytes, to: path, mode: mode)
        }
    }

    /// A key equal for two destinations that write the same file or stream.
    public var identity: String {
        switch self {
        case .descriptor(let fd):
            var status = stat()
            return fstat(fd, &status) == 0 ? Self.key(status) : "fd:\(fd)"
        case .inPlace(let path), .replace(let path, _):
            var status = stat()
            if stat(path, &status) == 0 { return Self.key(status) }
            let (directory, name) = Self.split(path)
            return "new:\(Self.realPath(directory) ?? directory)/\(name)"
        }
    }

    // MARK: - Checks

    private static func checkLengths(_ path: String) throws(Problem) {
        guard !path.isEmpty else { throw .empty }
        let bytes = path.utf8.count
        guard bytes < PATH_MAX else { throw .pathTooLong(bytes) }
        let longest = path.utf8.split(separator: UInt8(ascii: "/")).map(\.count).max() ?? 0
        guard longest <= NAME_MAX else { throw .nameTooLong(component: longest) }
    }

    /// The descriptor a `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or `/proc/self/fd/N` path
    /// names; nil for any other path.
    static func streamDescriptor(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                return Int32(path.dropFirst(prefix.count))
            }
            return nil
        }
    }

    private static func existing(_ path: String, _ status: stat) throws(Problem) -> OutputDestination {
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            let resolved = realPath(path) ?? path
            try checkDirectory(of: resolved)
            return .replace(path: resolved, mode: UInt32(status.st_mode & 0o7777))
        case S_IFCHR:
            guard access(path, W_OK) == 0 else { throw .unwritable(String(cString: strerror(errno))) }
            return .inPlace(path: path)
        case S_IFIFO: return try openFIFO(path)
        case S_IFDIR: throw .isDirectory
        case S_IFSOCK: throw .notAFile(kind: "socket")
        case S_IFBLK: throw .notAFile(kind: "block device")
        default: throw .notAFile(kind: "special file")
        }
    }

    /// A FIFO is opened now, without blocking, and written through that descriptor at the end:
    /// an open for writing waits until a reader comes, and one that never comes held lagmon in
    /// `open` for ever (with its signals held for the report, only SIGKILL ended it). With no
    /// reader the non-blocking open fails (ENXIO): a usage error before the program starts.
    private static func openFIFO(_ path: String) throws(Problem) -> OutputDestination {
        var fd: Int32
        repeat { fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd >= 0 else {
            if errno == ENXIO { throw .fifoWithoutReader }
            throw .unwritable(String(cString: strerror(errno)))
        }
        // Blocking from here: the report is written whole, at the reader's pace.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return .descriptor(fd)
    }

    private static func missing(_ path: String) throws(Problem) -> OutputDestination {
        guard !path.hasSuffix("/") else { throw .isDirectory }
        try checkDirectory(of: path)
        return .replace(path: path, mode: 0o666 & ~currentUmask())
    }

    /// The directory a new file is created in (for a rename, or a new file) must exist and be
    /// writable.
    private static func checkDirectory(of path: String) throws(Problem) {
        let directory = split(path).directory
        var status = stat()
        guard stat(directory, &status) == 0 else {
            if errno == ENOTDIR { throw .notADirectory(directory) }
            throw .missingDirectory(directory)
        }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw .notADirectory(directory) }
        guard access(directory, W_OK | X_OK) == 0 else { throw .unwritableDirectory(directory) }
    }

    // MARK: - Paths

    /// The directory part (`.` when none) and the last name of `path`.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Where a dangling symbolic link leads (its directory resolved), followed link by link.
    private static func resolvedLinkTarget(_ path: String) -> String? {
        var current = path
        for _ in 0..<40 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length > 0 else { return current }
            let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : split(current).directory + "/" + target
        }
        return nil
    }

    private static func key(_ status: stat) -> String { "inode:\(status.st_dev):\(status.st_ino)" }

    /// The process's umask, read from /proc (reading it with umask(2) would briefly change it
    /// for every thread).
    static func currentUmask() -> UInt32 {
        let status = String(decoding: ProcFS.readFile("/proc/self/status") ?? [], as: UTF8.self)
        for line in status.split(separator: "\n") where line.hasPrefix("Umask:") {
            let digits = line.dropFirst("Umask:".count).filter { $0 != " " && $0 != "\t" }
            if let mask = UInt32(digits, radix: 8) { return mask }
        }
        return 0o022
    }
}
