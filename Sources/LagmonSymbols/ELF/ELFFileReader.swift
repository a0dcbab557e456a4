import Glibc

/// Reads byte ranges of an ELF image with `pread`: a file, or a window of a process's memory
/// (/proc/<pid>/mem from the image's start). Owns its descriptor.
public final class ELFFileReader {
    private let descriptor: Int32
    /// Where the image starts in the descriptor's offsets.
    private let base: UInt64
    /// How many bytes the image has (the file's size, or the mapping's).
    public let size: UInt64

    /// Opens the file at `path`; nil when it cannot be opened or is not a regular file. Never
    /// blocks on open: a FIFO or device there is refused (see `MappedFile.openRegularFile`).
    public convenience init?(path: String) {
        guard let file = MappedFile.openRegularFile(path) else { return nil }
        self.init(duplicating: file.descriptor, size: file.size)
    }

    /// Reads a duplicate of `descriptor` (a regular file of `size` bytes).
    convenience init?(duplicating descriptor: Int32, size: UInt64) {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return nil }
        self.init(descriptor: copy, base: 0, size: size)
    }

    /// Reads the `size` bytes of memory at `address` in process `pid`: the vDSO, which has no file.
    public convenience init?(pid: Int32, address: UInt64, size: UInt64) {
        let descriptor = open("/proc/\(pid)/mem", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.init(descriptor: descriptor, base: address, size: size)
    }

    private init(descriptor: Int32, base: UInt64, size: UInt64) {
        self.descriptor = descriptor
        self.base = base
        self.size = size
    }

    deinit { close(descriptor) }

    /// The largest single read: bounds what a corrupt header can make lagmon allocate.
    static let readLimit = 512 << 20

    /// Exactly `count` bytes at `offset`, or nil when they are not all there.
    public func read(at offset: UInt64, count: Int) -> [UInt8]? {
        guard count >= 0, count <= Self.readLimit, offset <= size, UInt64(count) <= size - offset else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                pread(
                    descriptor, buffer.baseAddress.map { $0 + done }, count - done,
                    off_t(truncatingIfNeeded: base + offset + UInt64(done)))
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return nil }
            done += result
        }
        return bytes
    }
}
