import Glibc
import LagmonCore

/// What lagmon needs from an ELF64 little-endian image: its type, its loadable segments (to turn
/// a runtime address into the virtual address symbols and debug information use), whether it
/// carries DWARF line tables, where its separate debug information may be, and its function
/// symbols.
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

    /// `.gnu_debuglink`: the file name of the separate debug file and the CRC-32 of its bytes.
    struct DebugLink: Equatable {
        var fileName: String
        var crc: UInt32
    }

    /// ET_EXEC or ET_DYN.
    let kind: Kind
    /// The PT_LOAD segments and how they are placed in a process.
    let segments: ELFSegments
    /// Whether a `.debug_line` section exists (file:line lookups are worth a symbolizer run).
    let hasLineTables: Bool
    /// The GNU build id (`.note.gnu.build-id`), in hex; nil without one.
    let buildID: String?
    /// `.gnu_debuglink`, when the image names a separate debug file.
    let debugLink: DebugLink?
    /// `.symtab`'s functions, or `.dynsym`'s when the image is stripped.
    let symbols: ELFSymbolTable

    /// The virtual address of runtime `address`, which lies in `mapping` (a mapping of this
    /// file): `address - bias` (`ELFSegments`). Nil when the mapping is not one of this image's
    /// or no segment holds the address.
    func virtualAddress(of address: UInt64, in mapping: MemoryMapping) -> UInt64? {
        segments.virtualAddress(of: address, in: mapping)
    }

    /// The GNU build id from `.note.gnu.build-id`: namesz, descsz, type 3, "GNU\0", the id.
    private static func buildID(_ sections: ELFSections, reader: ELFFileReader) -> [UInt8]? {
        guard let note = sections.named(".note.gnu.build-id"), note.size >= 16, note.size <= 1024,
            let bytes = reader.read(at: note.fileOffset, count: Int(note.size))
        else { return nil }
        let nameSize = Int(bytes.elf32(0))
        let idSize = Int(bytes.elf32(4))
        let idStart = 12 + (nameSize + 3) / 4 * 4
        guard bytes.elf32(8) == 3, idSize > 1, idSize <= 64, idStart + idSize <= bytes.count else { return nil }
        return Array(bytes[idStart..<(idStart + idSize)])
    }

    /// `.gnu_debuglink`: a NUL-terminated file name, padding to 4 bytes, the CRC. Nil unless the
    /// name is one plain file name (no `/`, not `.` or `..`): it is looked up in fixed directories.
    private static func debugLink(_ sections: ELFSections, reader: ELFFileReader) -> DebugLink? {
        guard let link = sections.named(".gnu_debuglink"), link.type != 8, link.size >= 8, link.size <= 4096,
            let bytes = reader.read(at: link.fileOffset, count: Int(link.size)),
            let end = bytes.firstIndex(of: 0), end > 0
        else { return nil }
        let crcOffset = (end + 4) / 4 * 4
        let name = String(decoding: bytes[..<end], as: UTF8.self)
        guard crcOffset + 4 <= bytes.count, !name.contains("/"), name != ".", name != "..",
            !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\u{FFFD}" })
        else { return nil }
        return DebugLink(fileName: name, crc: bytes.elf32(crcOffset))
    }

    /// The magic, ELFCLASS64 and ELFDATA2LSB.
    static func isSupported(_ header: [UInt8]) -> Bool {
        header.count == 64 && header[0] == 0x7f && header[1] == UInt8(ascii: "E") && header[2] == UInt8(ascii: "L")
            && header[3] == UInt8(ascii: "F") && header[4] == 2 && header[5] == 1
    }
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
        segments = ELFSegments.read(header: header, reader: reader)
        let sections = ELFSections(header: header, reader: reader)
        hasLineTables = sections?.named(".debug_line").map { $0.type != 8 } ?? false
        let id = sections.flatMap { Self.buildID($0, reader: reader) }
        buildID = id.map { bytes in bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
        debugLink = sections.flatMap { Self.debugLink($0, reader: reader) }
        symbols = sections.flatMap { ELFSymbolTable(sections: $0, reader: reader) } ?? ELFSymbolTable()
    }
}
