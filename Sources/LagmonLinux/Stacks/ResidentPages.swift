import Glibc

/// Says whether pages of a process are resident, from `/proc/<pid>/pagemap` (which reads the
/// page tables and never faults anything in), so the sampler can copy them on its own thread
/// without a chance of waiting for a fault: a page that is not resident may sit behind a
/// userfaultfd or a stuck FUSE file, and is read on the memory worker instead, bounded. Owns
/// its descriptor.
final class ResidentPages {
    /// Pagemap's "page present" bit.
    static let presentBit: UInt64 = 1 << 63
    /// Most pages looked up at once: as many as the sampler's stack copy can span (a copy it
    /// could not look up all at once would always be handed to the memory worker).
    static let maxPages = StackSampler.stackCopyBytes / 4096 + 2

    private let descriptor: Int32

    /// Opens process `pid`'s pagemap; nil when it cannot be read (then every read is bounded).
    init?(pid: Int32) {
        descriptor = open("/proc/\(pid)/pagemap", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
    }

    deinit { close(descriptor) }

    /// Whether every page of the `length` bytes at `address` is resident.
    func areResident(_ address: UInt64, length: Int) -> Bool {
        guard length > 0 else { return true }
        let (end, overflow) = address.addingReportingOverflow(UInt64(length) - 1)
        guard !overflow else { return false }
        let first = address / 4096
        let count = Int(end / 4096 - first) + 1
        guard count <= Self.maxPages else { return false }
        var entries = [UInt64](repeating: 0, count: count)
        let read = entries.withUnsafeMutableBytes { buffer in
            pread(descriptor, buffer.baseAddress, buffer.count, off_t(truncatingIfNeeded: first &* 8))
        }
        return read == count * 8 && entries.allSatisfy { $0 & Self.presentBit != 0 }
    }
}
