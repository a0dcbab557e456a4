import Glibc
import LagmonCore

/// An image's PT_LOAD segments and the rules that place them in a process, as the loader maps
/// them: what turns a runtime address into the virtual address symbol tables, line tables and
/// unwind tables use.
///
/// The loader maps each segment from the page holding `p_offset` to the page holding
/// `p_vaddr + load bias`, so one mapping's `start - fileOffset` is `bias + p_vaddr - p_offset`
/// for the segment it maps. Which segment that is cannot be told from the file offset alone:
/// lld and mold put the end of one segment and the start of the next on one file page, mapped
/// twice at virtual addresses 0x1000 apart (docs/symbols.md). So the segment is the one whose
/// file pages hold the mapping's offset, whose execute permission the mapping has (read-only
/// data is never executable, code always is), whose virtual pages can hold the whole mapping,
/// and, of two data segments sharing a page, the one whose start the mapping holds.
/// An address then lies in the segment whose virtual range holds `address - bias`.
public struct ELFSegments: Equatable, Sendable {
    /// One PT_LOAD program header.
    public struct Segment: Equatable, Sendable {
        /// `p_offset`: where the segment starts in the file.
        public var fileOffset: UInt64
        /// `p_vaddr`: where it starts in the image's address space.
        public var virtualAddress: UInt64
        /// `p_filesz`: how many bytes come from the file.
        public var fileSize: UInt64
        /// `p_memsz`: how many bytes it occupies in memory (the file's, then zeroes).
        public var memorySize: UInt64
        /// `p_flags & PF_X`: the loader maps it executable.
        public var isExecutable: Bool

        public init(
            fileOffset: UInt64, virtualAddress: UInt64, fileSize: UInt64, memorySize: UInt64? = nil,
            isExecutable: Bool = false
        ) {
            self.fileOffset = fileOffset
            self.virtualAddress = virtualAddress
            self.fileSize = fileSize
            self.memorySize = max(memorySize ?? fileSize, fileSize)
            self.isExecutable = isExecutable
        }

        /// Whether virtual address `address` lies in `[p_vaddr, p_vaddr + p_memsz)`.
        func holds(virtualAddress address: UInt64) -> Bool {
            address >= virtualAddress && address - virtualAddress < memorySize
        }

        /// Whether the file page at `offset` holds some of the segment's file bytes.
        func mapsFilePage(at offset: UInt64) -> Bool {
            ELFSegments.pageDown(fileOffset) <= offset && offset < fileOffset &+ max(fileSize, 1)
        }
    }

    /// Whether the image is ET_EXEC: linked at fixed addresses, so its load bias is 0.
    public var isFixedAddress: Bool
    /// The PT_LOAD segments, in file order.
    public var segments: [Segment]

    public init(isFixedAddress: Bool, segments: [Segment]) {
        self.isFixedAddress = isFixedAddress
        self.segments = segments
    }

    /// What the image's virtual addresses are shifted by in the process where `mapping` (one of
    /// its mappings) lies; nil when no segment can be the one it maps (not a mapping of this image).
    public func loadBias(in mapping: MemoryMapping) -> UInt64? {
        let candidates = segments.filter { $0.mapsFilePage(at: mapping.fileOffset) }
        guard !candidates.isEmpty else { return nil }
        if isFixedAddress { return 0 }
        // The segment's first mapping holds its start: of two data segments sharing a page, the
        // one the mapping begins. A merged or hand-made mapping may match no rule: the
        // permission, then the first, decides.
        let sameProtection = candidates.filter { $0.isExecutable == mapping.isExecutable }
        let segment =
            sameProtection.first { fits(mapping, in: $0) && holdsStart(mapping, of: $0) }
            ?? sameProtection.first { fits(mapping, in: $0) } ?? candidates.first { fits(mapping, in: $0) }
            ?? sameProtection.first ?? candidates[0]
        return Self.bias(of: mapping, mapping: segment)
    }

    /// The virtual address of runtime `address`, which lies in `mapping`; nil when the mapping is
    /// not one of this image's or no segment's virtual range holds the address.
    public func virtualAddress(of address: UInt64, in mapping: MemoryMapping) -> UInt64? {
        guard address >= mapping.start, address < mapping.end, let bias = loadBias(in: mapping) else { return nil }
        let virtualAddress = address &- bias
        return segments.contains { $0.holds(virtualAddress: virtualAddress) } ? virtualAddress : nil
    }

    /// `start - fileOffset + p_offset - p_vaddr`. Wrapping: each step is in range for a
    /// well-formed image; a hostile one gets a wrong bias, never a trap.
    private static func bias(of mapping: MemoryMapping, mapping segment: Segment) -> UInt64 {
        mapping.start &- mapping.fileOffset &+ segment.fileOffset &- segment.virtualAddress
    }

    /// Whether `mapping`, placed as if it mapped `segment`, lies within the segment's pages.
    private func fits(_ mapping: MemoryMapping, in segment: Segment) -> Bool {
        let bias = Self.bias(of: mapping, mapping: segment)
        let end = mapping.end &- bias
        let segmentEnd = Self.pageUp(segment.virtualAddress &+ segment.memorySize)
        return mapping.end > mapping.start && end > Self.pageDown(segment.virtualAddress) && end <= segmentEnd
    }

    /// Whether `mapping`, placed as if it mapped `segment`, holds the segment's first byte.
    private func holdsStart(_ mapping: MemoryMapping, of segment: Segment) -> Bool {
        let start = Self.bias(of: mapping, mapping: segment) &+ segment.virtualAddress
        return start >= mapping.start && start < mapping.end
    }

    /// The PT_LOAD program headers of the image whose 64-byte ELF header is `header`.
    static func read(header: [UInt8], reader: ELFFileReader) -> ELFSegments {
        let offset = header.elf64(32)
        let entrySize = Int(header.elf16(54))
        let count = Int(header.elf16(56))
        let fixed = header.elf16(16) == 2
        guard entrySize >= 56, count > 0, count < 4096,
            let table = reader.read(at: offset, count: entrySize * count)
        else { return ELFSegments(isFixedAddress: fixed, segments: []) }
        let segments = (0..<count).compactMap { index -> Segment? in
            let base = index * entrySize
            guard table.elf32(base) == 1 else { return nil }  // PT_LOAD
            return Segment(
                fileOffset: table.elf64(base + 8), virtualAddress: table.elf64(base + 16),
                fileSize: table.elf64(base + 32), memorySize: table.elf64(base + 40),
                isExecutable: table.elf32(base + 4) & 1 != 0)
        }
        return ELFSegments(isFixedAddress: fixed, segments: segments)
    }

    /// Mappings start on page boundaries, segments need not: a segment at file offset 0x1b26a0
    /// is mapped from 0x1b2000.
    static func pageDown(_ offset: UInt64) -> UInt64 {
        offset & ~(pageSize - 1)
    }

    static func pageUp(_ offset: UInt64) -> UInt64 {
        pageDown(offset &+ pageSize - 1)
    }

    private static let pageSize = UInt64(max(sysconf(Int32(_SC_PAGESIZE)), 4096))
}
