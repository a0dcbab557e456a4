import Foundation

/// The list's images on disk: deterministic bytes and a deterministic decode cost per row.
struct ImageStore {
    /// Decode cost per row in milliseconds, cycling: all above the default 100 ms threshold.
    static let decodeMilliseconds = [150, 220, 180, 260, 140, 200]

    let directory: URL
    let rows: Int

    /// Writes the rows' image files into a fresh temporary directory.
    init(rows: Int) throws {
        self.rows = rows
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lagmon-demo-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for row in 0..<rows {
            try Self.imageBytes(row: row).write(to: url(row: row))
        }
    }

    func url(row: Int) -> URL { directory.appendingPathComponent("image-\(row).raw") }

    func decodeNs(row: Int) -> UInt64 {
        UInt64(Self.decodeMilliseconds[row % Self.decodeMilliseconds.count]) * 1_000_000
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// 64 KiB to 192 KiB of pseudo-random pixels (xorshift, seeded by row).
    private static func imageBytes(row: Int) -> Data {
        var state = UInt64(row + 1) &* 0x9E37_79B9_7F4A_7C15
        let count = 65_536 * (1 + row % 3)
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return Data(bytes)
    }
}
