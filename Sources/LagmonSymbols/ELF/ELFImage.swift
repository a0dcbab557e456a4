import Glibc
import LagmonCore

/// What lagmon needs from an ELF64 little-endian image: its type, its loadable segments (to turn
/// a runtime address into the virtual address symbols and debug information use), whether it
/// carries DWARF line tables, and its function symbols.
///
/// Everything is read with `pread` when the image is made and the file is closed again, so a
/// file replaced or truncated later cannot fault lagmon (as a mapping of it could).
struct ELFImage {
    /// `e_type`: where the image's addresses start.
    enum Kind: Equatable {
        /// ET_EXEC: linked at fixed addresses; runtime addresses are virtual addresses.
        case executable
        /// ET_DYN: a shared object or a position-independent executable, loaded anywhere.
        case sharedObject
    }

    /// One PT_LOAD program header.
    struct Segment: Equatable {
        /// `p_offset`: where the segment starts in the file.
        var fileOffset: UInt64
        /// `p_vaddr`: where it starts in the image's address space.
        var virtualAddress: UInt64
        /// `p_filesz`: how many bytes come from the file.
        var fileSize: UInt64
    }

    /// ET_EXEC or ET_DYN.
    let kind: Kind
    /// The PT_LOAD segments, in file order.
    let segments: [Segment]
    /// Whether a `.debug_line` section exists (file:line lookups are worth a symbolizer run).
    let hasLineTables: Bool
    /// Whether a separate debug file is installed for the image's build id
    /// (/usr/lib/debug/.build-id/ab/cdef….debug, where distributions' `-dbg` packages put them).
    let hasSeparateDebugFile: Bool
    /// `.symtab`'s functions, or `.dynsym`'s when the image is stripped.
    let symbols: ELFSymbolTable

    /// The virtual address of runtime `address`, which lies in `mapping` (a mapping of this
    /// file): `address - start + offset - p_offset + p_vaddr` for the PT_LOAD segment holding the
    /// mapping's file offset. Nil when no segment does (not a mapping of this image).
    func virtualAddress(of address: UInt64, in mapping: MemoryMapping) -> UInt64? {
        guard address >= mapping.start, address < mapping.end,
            let segment = segments.first(where: {
                Self.pageDown($0.fileOffset) <= mapping.fileOffset
                    && mapping.fileOffset < $0.fileOffset + max($0.fileSize, 1)
            })
        else { return nil }
        // Wrapping: each step is in range for a well-formed image; a hostile one gets a wrong
        // address, never a trap.
        return (address &- mapping.start &+ mapping.fileOffset) &- segment.fileOffset &+ segment.virtualAddress
    }

    /// The GNU build id from `.note.gnu.build-id`: namesz, descsz, type 3, "GNU\0", the id.
    private static func buildID(_ sections: ELFSections, reader: ELFFileReader) -> [UInt8]? {
        guard let note = sections.named(".note.gnu.build-id"), note.size >= 16, note.size <= 1024,
            let bytes = reader.read(at: note.fileOffset, count: Int(note.size))
        else { return nil }
        let nameSize = Int(bytes.elf32(0))
        let idSize = Int(bytes.elf32(4))
        let idStart = 12 + (nameSize + 3) / 4 * 4
        guard bytes.elf32(8) == 3, idSize > 1, idStart + idSize <= bytes.count else { return nil }
        return Array(bytes[idStart..<(idStart + idSize)])
    }

    private static func debugFileExists(buildID: [UInt8]) -> Bool {
        let hex = buildID.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
        let path = "/usr/lib/debug/.build-id/\(hex[0])/\(hex.dropFirst().joined()).debug"
        return access(path, R_OK) == 0
    }

    /// The magic, ELFCLASS64 and ELFDATA2LSB.
    static func isSupported(_ header: [UInt8]) -> Bool {
        header.count == 64 && header[0] == 0x7f && header[1] == UInt8(ascii: "E") && header[2] == UInt8(ascii: "L")
            && header[3] == UInt8(ascii: "F") && header[4] == 2 && header[5] == 1
    }

    static func loadSegments(header: [UInt8], reader: ELFFileReader) -> [Segment] {
        let offset = header.elf64(32)
        let entrySize = Int(header.elf16(54))
        let count = Int(header.elf16(56))
        guard entrySize >= 56, count > 0, count < 4096,
            let table = reader.read(at: offset, count: entrySize * count)
        else { return [] }
        return (0..<count).compactMap { index in
            let base = index * entrySize
            guard table.elf32(base) == 1 else { return nil }  // PT_LOAD
            return Segment(
                fileOffset: table.elf64(base + 8), virtualAddress: table.elf64(base + 16),
                fileSize: table.elf64(base + 32))
        }
    }

    /// Mappings start on page boundaries, segments need not: a segment at file offset 0x1b26a0
    /// is mapped from 0x1b2000.
    static func pageDown(_ offset: UInt64) -> UInt64 {
        offset & ~(pageSize - 1)
    }

    private static let pageSize = UInt64(max(sysconf(Int32(_SC_PAGESIZE)), 4096))
}

extension ELFImage {
    /// The image in the file at `path`; nil when it cannot be read or is not an ELF64
    /// little-endian executable or shared object.
    init?(path: String) {
        guard let reader = ELFFileReader(path: path) else { return nil }
        self.init(reader: reader)
    }

    /// The image `reader` reads (a file, or a process's memory for the vDSO).
    init?(reader: ELFFileReader) {
        guard let header = reader.read(at: 0, count: 64), Self.isSupported(header) else { return nil }
        switch header.elf16(16) {
        case 2: kind = .executable
        case 3: kind = .sharedObject
        default: return nil
        }
        segments = Self.loadSegments(header: header, reader: reader)
        let sections = ELFSections(header: header, reader: reader)
        hasLineTables = sections?.named(".debug_line") != nil
        hasSeparateDebugFile = sections.flatMap { Self.buildID($0, reader: reader) }.map(Self.debugFileExists) ?? false
        symbols = sections.flatMap { ELFSymbolTable(sections: $0, reader: reader) } ?? ELFSymbolTable()
    }
}
