import Glibc
import LagmonCore

/// A process's perf map (`/tmp/perf-<pid>.map` inside its root, named with the pid the process
/// has in its own PID namespace, so containers work), read incrementally: runtimes only append
/// to it, so each `refresh()` reads what was added since.
///
/// The file is the target's: lagmon opens it through the process's `TargetFileSystem` (a
/// symlink in the path resolves inside the process's root, never to a host file) and not
/// through a symlink as its last component, only when it is a regular file (a FIFO or device is
/// refused before any read can block, and the descriptor is non-blocking anyway), reads at most
/// `maxBytes` of it in all and `chunkBytes` per refresh, and starts over when the file was
/// replaced (another inode) or shrank.
public final class PerfMapFile {
    /// Most bytes read of one file (all refreshes together).
    public static let maxBytes = 64 << 20
    /// Most bytes read by one refresh.
    public static let chunkBytes = 8 << 20

    /// The process's files.
    public let files: TargetFileSystem
    /// What was parsed so far.
    public private(set) var map = PerfMap()
    /// Why the last refresh read nothing (`not a regular file`, `larger than 64 MiB`); nil when it
    /// did, or when there is no map.
    public private(set) var refusal: String?
    private var identity: (device: UInt64, inode: UInt64)?

    /// The perf map of the process whose files `files` opens.
    public init(files: TargetFileSystem) {
        self.files = files
    }

    /// The perf map of process `pid`.
    public convenience init(pid: Int32) {
        self.init(files: TargetFileSystem(pid: pid))
    }

    /// The file's path as the process names it.
    public var path: String { "/tmp/perf-\(files.namespacedPid).map" }

    /// The last refusal, as a problem for the report.
    public var problem: TargetFileProblem? {
        refusal.map { TargetFileProblem(pid: files.pid ?? getpid(), path: path, reason: $0) }
    }

    /// Reads what was appended since the last refresh; false when the file is absent or refused.
    @discardableResult
    public func refresh() -> Bool {
        let file: MappedFile
        switch files.openFile(path, sizeLimit: .max, noFollow: true) {
        case .success(let opened): file = opened
        case .failure(let problem):
            refusal = problem.reason == TargetFileSystem.missingReason ? nil : problem.reason
            return false
        }
        return withExtendedLifetime(file) { read(file.descriptor) }
    }

    private func read(_ descriptor: Int32) -> Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
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
