/// An ELF64 image's section header table, with section names: what finds `.symtab`, `.dynsym`,
/// their string tables and `.debug_line`.
struct ELFSections {
    /// One section header (the fields lagmon uses).
    struct Section {
        /// The name, from the section-name string table.
        var name: String
        /// `sh_type` (SHT_SYMTAB = 2, SHT_DYNSYM = 11, SHT_NOBITS = 8, …).
        var type: UInt32
        /// `sh_offset` in the file.
        var fileOffset: UInt64
        /// `sh_size` in bytes.
        var size: UInt64
        /// `sh_link`: for a symbol table, the index of its string table.
        var link: UInt32
    }

    /// Every section, by index.
    let sections: [Section]

    /// The section table of the image whose 64-byte ELF header is `header`; nil when it has none
    /// or it cannot be read.
    init?(header: [UInt8], reader: ELFFileReader) {
        let offset = header.elf64(40)
        let entrySize = Int(header.elf16(58))
        var count = Int(header.elf16(60))
        var namesIndex = Int(header.elf16(62))
        guard offset != 0, entrySize >= 64, let first = reader.read(at: offset, count: entrySize) else { return nil }
        // Over 0xff00 sections: the real count and name-table index sit in section 0.
        if count == 0 { count = Int(clamping: first.elf64(32)) }
        if namesIndex == 0xffff { namesIndex = Int(first.elf32(40)) }
        guard count > 0, count <= 1 << 20, namesIndex < count,
            let table = reader.read(at: offset, count: entrySize * count)
        else { return nil }
        let names = Self.header(table, at: namesIndex * entrySize, names: nil)
        let nameBytes = names.type == 8 ? nil : reader.read(at: names.fileOffset, count: Int(clamping: names.size))
        sections = (0..<count).map { Self.header(table, at: $0 * entrySize, names: nameBytes) }
    }

    /// The first section called `name`.
    func named(_ name: String) -> Section? {
        sections.first { $0.name == name }
    }

    /// The section at `index`, if it exists.
    func at(_ index: UInt32) -> Section? {
        Int(index) < sections.count ? sections[Int(index)] : nil
    }

    private static func header(_ table: [UInt8], at base: Int, names: [UInt8]?) -> Section {
        let nameOffset = Int(table.elf32(base))
        return Section(
            name: names.map { ELFSymbolTable.string(in: $0, at: nameOffset) } ?? "", type: table.elf32(base + 4),
            fileOffset: table.elf64(base + 24), size: table.elf64(base + 32), link: table.elf32(base + 40))
    }
}
