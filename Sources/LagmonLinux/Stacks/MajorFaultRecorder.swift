import CLagmonLinux
import Glibc
import LagmonCore

/// Records the address of every major page fault one thread takes, from the moment it is made
/// until it is drained for the last time: a perf software event
/// (`PERF_COUNT_SW_PAGE_FAULTS_MAJ`, one sample per fault, `PERF_SAMPLE_ADDR`) on that thread
/// alone, read from its ring buffer. Owns the event's descriptor and mapping.
final class MajorFaultRecorder {
    /// Data pages of the ring (a power of two): 2048 records of 16 bytes; drained at every
    /// sample, so it overflows only past ~200 faults per millisecond of sampling interval.
    static let dataPages = 8
    /// perf_event.h's record types: a sample, and a count of records the full ring dropped.
    static let recordSample: UInt32 = 9
    static let recordLost: UInt32 = 2
    /// Most distinct fault pages kept per stall; faults on further pages count as unplaced.
    static let maxPages = 65_536

    private let descriptor: Int32
    private let ring: UnsafeMutableRawPointer
    private let ringLength: Int
    private let dataOffset: Int
    private let dataSize: UInt64
    /// Faults per page address so far.
    private(set) var pages: [UInt64: UInt64] = [:]
    /// Fault records read, and faults the kernel reported lost or that found no room in `pages`.
    private(set) var recorded: UInt64 = 0
    private(set) var lost: UInt64 = 0

    /// Starts recording thread `tid`'s major faults; throws why perf refused.
    init(tid: Int32) throws(SystemError) {
        let descriptor = lagmon_perf_open_major_faults(tid)
        guard descriptor >= 0 else { throw SystemError("perf_event_open") }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let length = page * (1 + Self.dataPages)
        let ring = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
        guard let ring, ring != MAP_FAILED else {
            let failure = SystemError("mmap")
            close(descriptor)
            throw failure
        }
        var offset: UInt64 = 0
        var size: UInt64 = 0
        lagmon_perf_ring_data(ring, &offset, &size)
        // Kernels before 4.1 leave both 0: the data follows the first page.
        if size == 0 || offset == 0 || offset + size > UInt64(length) {
            offset = UInt64(page)
            size = UInt64(page * Self.dataPages)
        }
        self.descriptor = descriptor
        self.ring = ring
        self.ringLength = length
        self.dataOffset = Int(offset)
        self.dataSize = size
    }

    deinit {
        munmap(ring, ringLength)
        close(descriptor)
    }

    /// Reads every record the kernel wrote since the last drain (bounded by the ring's size).
    func drain() {
        let head = lagmon_perf_ring_head(ring)
        var tail = lagmon_perf_ring_tail(ring)
        // A head more than a ring ahead is not the kernel's doing: skip what cannot be read.
        if head &- tail > dataSize { tail = head }
        while head &- tail >= 8 {
            let type = UInt32(truncatingIfNeeded: read64(at: tail))
            let size = UInt64(UInt16(truncatingIfNeeded: read64(at: tail) >> 48))
            guard size >= 8, size <= head &- tail else { break }
            take(type: type, size: size, at: tail)
            tail &+= size
        }
        lagmon_perf_ring_set_tail(ring, head)
    }

    /// The sites, placed with process `pid`'s memory map now (nil: all `[unmapped]`).
    func sites(map: ProcessMemoryMap?) -> MajorFaultSites {
        let files = MajorFaultAttribution.files(pages, map: map ?? ProcessMemoryMap([]))
        return MajorFaultSites(recorded: recorded &+ lost, lost: lost, files: files)
    }

    /// One record: a sample (its address) or a loss report (its count).
    private func take(type: UInt32, size: UInt64, at position: UInt64) {
        if type == Self.recordSample, size >= 16 {
            let page = read64(at: position &+ 8) & ~0xfff
            if pages[page] != nil || pages.count < Self.maxPages {
                pages[page, default: 0] &+= 1
                recorded &+= 1
            } else {
                lost &+= 1
            }
        } else if type == Self.recordLost, size >= 24 {
            lost &+= read64(at: position &+ 16)
        }
    }

    /// The 8 bytes at ring position `position` (records may wrap around the end).
    private func read64(at position: UInt64) -> UInt64 {
        var value: UInt64 = 0
        for byte in 0..<UInt64(8) {
            let offset = dataOffset + Int((position &+ byte) % dataSize)
            value |= UInt64(ring.load(fromByteOffset: offset, as: UInt8.self)) << (byte * 8)
        }
        return value
    }
}
