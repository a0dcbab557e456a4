import Glibc
import LagmonCore

/// A process's perf map (`/tmp/perf-<pid>.map` inside its root, so containers work), read
/// incrementally: runtimes only append to it, so each `refresh()` reads what was added since.
///
/// The file is the target's: lagmon opens it without following a symlink (neither `tmp` nor the
/// file), only when it is a regular file (a FIFO or device is refused before any read can block,
/// and the descriptor is non-blocking anyway), reads at most `maxBytes` of it in all and
/// `chunkBytes` per refresh, and starts over when the file was replaced (another inode) or
/// shrank.
public final class PerfMapFile {
    /// Most bytes read of one file (all refreshes together).
    public static let maxBytes = 64 << 20
    /// Most bytes read by one refresh.
    public static let chunkBytes = 8 << 20

    /// The process.
    public let pid: Int32
    /// The pid the process knows itself by (its PID namespace's), which names the file.
    public let nsPid: Int32
    /// What was parsed so far.
    public private(set) var map = PerfMap()
    /// Why the last refresh read nothing (`not a regular file`, `larger than 64 MiB`); nil when it did.
    public private(set) var refusal: String?
    private var identity: (device: UInt64, inode: UInt64)?

    /// The perf map of process `pid`, which knows itself as `nsPid` (the same outside containers).
    public init(pid: Int32, nsPid: Int32? = nil) {
        self.pid = pid
        self.nsPid = nsPid ?? pid
    }

    /// The file's path as the process names it.
    public var path: String { "/tmp/perf-\(nsPid).map" }

    /// Reads what was appended since the last refresh; false when the file is absent or refused.
    @discardableResult
    public func refresh() -> Bool {
        guard let descriptor = open() else { return false }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            refusal = "not a regular file"
            return false
        }
        let size = Int(max(status.st_size, 0))
        let file = (UInt64(status.st_dev), UInt64(status.st_ino))
        if identity.map({ $0 != file }) ?? false || size < map.bytesConsumed { map = PerfMap() }
        identity = file
        guard size <= Self.maxBytes else {
            refusal = "larger than \(Self.maxBytes >> 20) MiB"
            return false
        }
        refusal = nil
        readAppended(descriptor, size: size)
        return true
    }

    /// `/proc/<pid>/root/tmp`, then the file in it, neither through a symlink, non-blocking.
    private func open() -> Int32? {
        let directory = Glibc.open("/proc/\(pid)/root/tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else { return nil }
        defer { close(directory) }
        let descriptor = openat(
            directory, "perf-\(nsPid).map", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        if descriptor < 0 && (errno == ELOOP || errno == ENXIO) { refusal = "not a regular file" }
        return descriptor >= 0 ? descriptor : nil
    }

    private func readAppended(_ descriptor: Int32, size: Int) {
        var offset = map.bytesConsumed
        let end = min(size, offset + Self.chunkBytes)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while offset < end {
            let wanted = min(buffer.count, end - offset)
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            map.append(buffer[0..<count])
            offset += count
        }
    }
}
