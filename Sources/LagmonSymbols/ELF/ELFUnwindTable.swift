import LagmonCore

/// Where an image's `.eh_frame_hdr` binary-search table lies, in the image's virtual addresses:
/// what the unwinder needs to find each function's unwind rules in the target's own memory
/// (the table and `.eh_frame` are loaded with the image), so it never opens a file itself.
public struct ELFUnwindTable: Equatable, Sendable {
    /// The virtual address of `.eh_frame_hdr` (PT_GNU_EH_FRAME): what its entries are relative to.
    public var headerAddress: UInt64
    /// The virtual address of the table that follows the header.
    public var tableAddress: UInt64
    /// How many (initial location, FDE) pairs the table holds.
    public var entryCount: UInt64
    /// The PT_LOAD segments, to place the image in a process.
    let segments: ELFSegments

    /// The table of the image `reader` reads; nil when it has none, or one lagmon cannot search
    /// (a header version other than 1, a table not encoded as 4-byte data-relative pairs).
    public init?(reader: ELFFileReader) {
        guard let header = reader.read(at: 0, count: 64), ELFImage.isSupported(header) else { return nil }
        let offset = header.elf64(32)
        let entrySize = Int(header.elf16(54))
        let count = Int(header.elf16(56))
        guard entrySize >= 56, count > 0, count < 4096, let table = reader.read(at: offset, count: entrySize * count),
            let frameHeader = (0..<count).map({ $0 * entrySize }).first(where: { table.elf32($0) == 0x6474_e550 })
        else { return nil }
        let fileOffset = table.elf64(frameHeader + 8)
        let virtualAddress = table.elf64(frameHeader + 16)
        let fileSize = table.elf64(frameHeader + 32)
        guard fileSize >= 12, let bytes = reader.read(at: fileOffset, count: Int(min(fileSize, 20))),
            let (entries, tableOffset) = Self.parseHeader(bytes), entries <= (fileSize - UInt64(tableOffset)) / 8
        else { return nil }
        headerAddress = virtualAddress
        tableAddress = virtualAddress &+ UInt64(tableOffset)
        entryCount = entries
        segments = ELFSegments.read(header: header, reader: reader)
    }

    /// What this image's virtual addresses are shifted by where `mapping` (one of its mappings)
    /// lies (`ELFSegments.loadBias(in:)`, the rule symbols and line tables use too); nil when no
    /// PT_LOAD segment can be the one the mapping maps.
    public func loadBias(in mapping: MemoryMapping) -> UInt64? {
        segments.loadBias(in: mapping)
    }

    /// `version, eh_frame_ptr_enc, fde_count_enc, table_enc`, the encoded `.eh_frame` pointer and
    /// the encoded count: the count and where the table starts.
    static func parseHeader(_ bytes: [UInt8]) -> (entries: UInt64, tableOffset: Int)? {
        guard bytes.count >= 4, bytes[0] == 1, bytes[3] == 0x3b,  // DW_EH_PE_datarel | DW_EH_PE_sdata4
            let pointerSize = encodedSize(bytes[1]), let countSize = encodedSize(bytes[2]), countSize > 0,
            4 + pointerSize + countSize <= bytes.count
        else { return nil }
        var entries: UInt64 = 0
        for index in (0..<countSize).reversed() { entries = entries << 8 | UInt64(bytes[4 + pointerSize + index]) }
        return (entries, 4 + pointerSize + countSize)
    }

    /// The size of a DWARF pointer encoding's value; 0 for DW_EH_PE_omit; nil when unknown.
    private static func encodedSize(_ encoding: UInt8) -> Int? {
        if encoding == 0xff { return 0 }
        switch encoding & 0x0f {
        case 0x00, 0x04, 0x0c: return 8  // absptr, udata8, sdata8
        case 0x03, 0x0b: return 4  // udata4, sdata4
        case 0x02, 0x0a: return 2  // udata2, sdata2
        default: return nil
        }
    }
}
