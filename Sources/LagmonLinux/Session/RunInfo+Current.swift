import FoundationEssentials
import Glibc
import LagmonCore

extension RunInfo {
    /// A new run id and this machine's host name (`?` when gethostname fails).
    public static func current() -> RunInfo {
        var name = [UInt8](repeating: 0, count: 256)
        let found = name.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                chars.baseAddress.map { gethostname($0, chars.count - 1) == 0 } ?? false
            }
        }
        let host = found ? String(decoding: name.prefix { $0 != 0 }, as: UTF8.self) : "?"
        return RunInfo(id: UUID().uuidString.lowercased(), host: host)
    }
}
