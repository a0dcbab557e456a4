import Glibc
import LagmonCore

extension ProcessMemoryMap {
    /// The largest maps file read: a process with ~500k mappings; past it the map is truncated
    /// (at a line boundary, so the tail's addresses are simply unmapped).
    static let mapsReadLimit = 64 << 20

    /// The memory map of process `pid` now, or nil when /proc/<pid>/maps cannot be read (the
    /// process is gone, or not ours to inspect). Reads until EOF: the file is far larger than
    /// one read returns (the kernel hands it out a page at a time).
    public static func read(pid: Int32) -> ProcessMemoryMap? {
        let descriptor = open("/proc/\(pid)/maps", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < mapsReadLimit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        if bytes.count >= mapsReadLimit, let lastNewline = bytes.lastIndex(of: UInt8(ascii: "\n")) {
            bytes.removeSubrange((lastNewline + 1)...)
        }
        return ProcessMemoryMap(mapsText: String(decoding: bytes, as: UTF8.self))
    }
}
