/// The memory map of one process at one instant: which mapping, and which module, holds an
/// address.
public struct ProcessMemoryMap: Sendable, Equatable {
    /// Where a module (a mapped file or a kernel pseudo-mapping) lies.
    public struct Module: Sendable, Equatable {
        /// The mapping holding the address.
        public var mapping: MemoryMapping
        /// The module's runtime base: its first mapping's start minus that mapping's file offset
        /// (the load bias of a position-independent image whose first segment has address 0).
        public var loadBase: UInt64

        /// The file name or pseudo-path frames show (`libc.so.6`, `[vdso]`).
        public var name: String { mapping.moduleName }
        /// The file, without the ` (deleted)` marker; nil for pseudo-mappings.
        public var path: String? { mapping.filePath }
    }

    /// The mappings, sorted by start address.
    public let mappings: [MemoryMapping]

    /// A map of `mappings` (in any order).
    public init(_ mappings: [MemoryMapping]) {
        self.mappings = mappings.sorted { $0.start < $1.start }
    }

    /// A map of the text of /proc/<pid>/maps.
    public init(mapsText: String) {
        self.init(MemoryMapParser.parse(mapsText))
    }

    /// Only the mappings of files (and the vDSO): all symbolization needs. Anonymous memory,
    /// the heap and stacks change from one moment to the next; the images do not.
    public var images: ProcessMemoryMap {
        ProcessMemoryMap(sortedMappings: mappings.filter { $0.path.hasPrefix("/") || $0.path == "[vdso]" })
    }

    private init(sortedMappings: [MemoryMapping]) {
        self.mappings = sortedMappings
    }

    /// The mapping containing `address`, if any.
    public func mapping(containing address: UInt64) -> MemoryMapping? {
        index(containing: address).map { mappings[$0] }
    }

    /// The module containing `address`; nil outside any mapping and in anonymous memory.
    public func module(containing address: UInt64) -> Module? {
        guard let index = index(containing: address), !mappings[index].path.isEmpty else { return nil }
        let first = firstMappingOfImage(endingAt: index)
        let base = first.start >= first.fileOffset ? first.start - first.fileOffset : first.start
        return Module(mapping: mappings[index], loadBase: base)
    }

    /// Binary search: the last mapping starting at or below `address`, if it contains it.
    private func index(containing address: UInt64) -> Int? {
        var low = 0
        var high = mappings.count
        while low < high {
            let middle = (low + high) / 2
            if mappings[middle].start <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0, address < mappings[low - 1].end else { return nil }
        return low - 1
    }

    /// The image's first mapping: walks back over adjacent mappings of the same path whose file
    /// offsets do not increase backwards, stopping at another copy of the same file (mapped twice).
    private func firstMappingOfImage(endingAt index: Int) -> MemoryMapping {
        var first = index
        while first > 0 {
            let previous = mappings[first - 1]
            let current = mappings[first]
            guard previous.path == current.path, previous.fileOffset <= current.fileOffset,
                previous.end <= current.start
            else { break }
            first -= 1
        }
        return mappings[first]
    }
}
