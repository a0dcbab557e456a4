/// The function symbols of an ELF image, sorted by address: the in-process way from a virtual
/// address to a (mangled) name. `.symtab` when the image has one, else the exported `.dynsym`.
struct ELFSymbolTable {
    /// One function: `[start, start + size)`.
    private struct Entry {
        var start: UInt64
        var size: UInt64
        var nameOffset: UInt32
        /// 0 global, 1 weak, 2 local: which alias names an address.
        var bindingRank: UInt8
    }

    private let entries: [Entry]
    private let strings: [UInt8]
    /// Whether the image has no `.symtab` (stripped): only exported functions are known, and a
    /// separate debug file's table says more.
    let isExportsOnly: Bool

    /// A table without symbols.
    init() {
        entries = []
        strings = []
        isExportsOnly = true
    }

    /// The functions of `.symtab` (or `.dynsym`) in `sections`; nil when there is neither.
    init?(sections: ELFSections, reader: ELFFileReader) {
        guard
            let table = sections.sections.first(where: { $0.type == 2 })
                ?? sections.sections.first(where: { $0.type == 11 }),
            let strings = sections.at(table.link).flatMap({
                reader.read(at: $0.fileOffset, count: Int(clamping: $0.size))
            }),
            let bytes = reader.read(at: table.fileOffset, count: Int(clamping: table.size))
        else { return nil }
        self.strings = strings
        isExportsOnly = table.type == 11
        entries = Self.deduplicated(Self.functions(in: bytes), strings: strings)
    }

    /// How many functions the table knows.
    var count: Int { entries.count }

    /// The function whose range holds `address` (a virtual address): its name and start.
    func symbol(containing address: UInt64) -> (name: String, start: UInt64)? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].start <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let entry = entries[low - 1]
        let inside = entry.size == 0 ? address == entry.start : address - entry.start < entry.size
        guard inside else { return nil }
        // A full table (a debug file's) spells versioned symbols `clock_gettime@@GLIBC_2.17`.
        let name = Self.string(in: strings, at: Int(entry.nameOffset))
        return (name.firstIndex(of: "@").map { String(name[..<$0]) } ?? name, entry.start)
    }

    /// The names of the functions for whose name bytes `matches` holds (checked on bytes, so a
    /// large table is scanned without making a string per symbol).
    func names(where matches: (ArraySlice<UInt8>) -> Bool) -> [String] {
        entries.compactMap { entry in
            let offset = Int(entry.nameOffset)
            guard offset < strings.count else { return nil }
            let end = strings[offset...].firstIndex(of: 0) ?? strings.endIndex
            return matches(strings[offset..<end]) ? Self.string(in: strings, at: offset) : nil
        }
    }

    /// The NUL-terminated string at `offset` of a string table (empty when out of range).
    static func string(in table: [UInt8], at offset: Int) -> String {
        guard offset >= 0, offset < table.count else { return "" }
        let end = table[offset...].firstIndex(of: 0) ?? table.endIndex
        return String(decoding: table[offset..<end], as: UTF8.self)
    }

    /// STT_FUNC symbols that are defined (a section, an address), from 24-byte Elf64_Sym entries.
    private static func functions(in bytes: [UInt8]) -> [Entry] {
        bytes.withUnsafeBytes { raw in
            stride(from: 0, through: raw.count - 24, by: 24).compactMap { base -> Entry? in
                let info = raw[base + 4]
                let section = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: base + 6, as: UInt16.self))
                let value = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: base + 8, as: UInt64.self))
                guard info & 0xf == 2, section != 0, value != 0 else { return nil }
                let binding = info >> 4
                return Entry(
                    start: value,
                    size: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: base + 16, as: UInt64.self)),
                    nameOffset: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: base, as: UInt32.self)),
                    bindingRank: binding == 1 ? 0 : binding == 2 ? 1 : 2)
            }
        }
    }

    /// Sorted by start, one entry per start: aliases (`clock_gettime`, `__clock_gettime`) keep the
    /// public-looking name — one with a size (`main` is a size-0 alias of `lagmon_demo_main`), then
    /// the fewest leading underscores, then global over weak over local, then the shortest, then
    /// the first in byte order (deterministic) — and the largest size among them.
    private static func deduplicated(_ entries: [Entry], strings: [UInt8]) -> [Entry] {
        let sorted = entries.sorted { $0.start < $1.start }
        var result: [Entry] = []
        result.reserveCapacity(sorted.count)
        for entry in sorted {
            if let last = result.last, last.start == entry.start {
                var best = preference(entry, strings) < preference(last, strings) ? entry : last
                best.size = max(entry.size, last.size)
                result[result.count - 1] = best
            } else {
                result.append(entry)
            }
        }
        return result
    }

    private static func preference(_ entry: Entry, _ strings: [UInt8]) -> (Int, Int, UInt8, Int, String) {
        let name = string(in: strings, at: Int(entry.nameOffset))
        return (entry.size == 0 ? 1 : 0, name.prefix { $0 == "_" }.count, entry.bindingRank, name.utf8.count, name)
    }
}
