/// Names the files a thread's major page faults hit: each fault address looked up in the
/// process's memory map (pure; the addresses and the map are the target's, so untrusted: an
/// address in no mapping is `[unmapped]`, never a guess).
public enum MajorFaultAttribution {
    /// Name of faults in anonymous memory (pages read back from swap).
    public static let anonymous = "[anonymous]"
    /// Name of faults at addresses no mapping holds any more.
    public static let unmapped = "[unmapped]"

    /// Faults per file for `faults` (page address → faults there) in `map`, most first (ties by
    /// path), at most `limit`.
    public static func files(_ faults: [UInt64: UInt64], map: ProcessMemoryMap, limit: Int = 3) -> [PageFaultFile] {
        var byPath: [String: UInt64] = [:]
        for (address, count) in faults {
            byPath[name(of: address, in: map), default: 0] &+= count
        }
        let sorted = byPath.map { PageFaultFile(path: $0.key, faults: $0.value) }.sorted {
            $0.faults != $1.faults ? $0.faults > $1.faults : $0.path < $1.path
        }
        return Array(sorted.prefix(max(0, limit)))
    }

    /// The file (without ` (deleted)`), pseudo-path or kind of memory holding `address`.
    static func name(of address: UInt64, in map: ProcessMemoryMap) -> String {
        guard let mapping = map.mapping(containing: address) else { return unmapped }
        if mapping.path.isEmpty { return anonymous }
        return mapping.filePath ?? mapping.path
    }
}
