/// Finds a data symbol (`_PyRuntime`) in an ELF image's `.dynsym` (then `.symtab`): what locates
/// an interpreter's global state in a process. ELFSymbolTable keeps functions only.
public enum ELFDataSymbol {
    /// The runtime address of the object symbol `name` in the image `reader` reads, mapped in a
    /// process whose image base is `loadBase`; nil when the image or the symbol is not there.
    public static func address(of name: String, reader: ELFFileReader, loadBase: UInt64) -> UInt64? {
        addresses(of: [name], reader: reader, loadBase: loadBase)[name]
    }

    /// The runtime addresses of the object symbols `names` found in the image (`.dynsym` first,
    /// then `.symtab` for the names it lacks), each table read once.
    public static func addresses(of names: [String], reader: ELFFileReader, loadBase: UInt64) -> [String: UInt64] {
        guard let header = reader.read(at: 0, count: 64),
            header.starts(with: [0x7f, 0x45, 0x4c, 0x46]), header.count > 5, header[4] == 2,
            let sections = ELFSections(header: header, reader: reader)
        else { return [:] }
        var found: [String: UInt64] = [:]
        for type: UInt32 in [11, 2] {
            let missing = names.filter { found[$0] == nil }
            guard !missing.isEmpty, let table = sections.sections.first(where: { $0.type == type }),
                let strings = sections.at(table.link).flatMap({
                    reader.read(at: $0.fileOffset, count: Int(clamping: $0.size))
                }),
                let bytes = reader.read(at: table.fileOffset, count: Int(clamping: table.size))
            else { continue }
            for name in missing {
                guard let value = find(Array(name.utf8), symbols: bytes, strings: strings) else { continue }
                // ET_EXEC images are linked where they run; shared objects and PIEs move by the base.
                found[name] = header.elf16(16) == 2 ? value : loadBase &+ value
            }
        }
        return found
    }

    /// The value of the defined STT_OBJECT symbol named `wanted` in 24-byte Elf64_Sym entries.
    private static func find(_ wanted: [UInt8], symbols: [UInt8], strings: [UInt8]) -> UInt64? {
        for base in stride(from: 0, through: symbols.count - 24, by: 24) {
            let info = symbols[base + 4]
            guard info & 0xf == 1, symbols.elf16(base + 6) != 0 else { continue }
            let offset = Int(symbols.elf32(base))
            guard offset >= 0, offset + wanted.count < strings.count, strings[offset + wanted.count] == 0,
                strings[offset..<offset + wanted.count].elementsEqual(wanted)
            else { continue }
            return symbols.elf64(base + 8)
        }
        return nil
    }
}
