import Glibc

/// lagmon's own /proc/self/maps, for finding its vDSO mapping (a few dozen lines), and other
/// /proc text files read whole, up to 16 MiB.
enum ProcSelfMaps {
    /// The text of `path` (lagmon's own maps unless told); empty when it cannot be read.
    static func text(_ path: String = "/proc/self/maps") -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < 16 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
