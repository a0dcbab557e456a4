import Foundation

/// The list's images on disk: deterministic bytes and a deterministic decode cost per row.
struct ImageStore {
    /// Decode cost per row in milliseconds, cycling: all above the default 100 ms threshold.
    static let decodeMilliseconds = [150, 220, 180, 260, 140, 200]

    let directory: URL
    let rows: Int

    /// Writes the rows' image files into a fresh private directory.
    ///
    /// The directory comes from mkdtemp (a new name, mode 0700, owned by us) under `$TMPDIR` or
    /// /tmp, and each file is created with O_EXCL|O_NOFOLLOW: whatever another user planted in
    /// /tmp, the demo (often run as root by `make demo`) writes only files it just created.
    init(rows: Int) throws {
        self.rows = rows
        directory = try Self.makePrivateDirectory()
        for row in 0..<rows {
            try Self.create(url(row: row).path, bytes: Self.imageBytes(row: row))
        }
    }

    /// A new directory `lagmon-demo-XXXXXX` (mkdtemp) in the temporary directory.
    private static func makePrivateDirectory() throws -> URL {
        let base = FileManager.default.temporaryDirectory.path
        var template = Array("\(base)/lagmon-demo-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    /// Writes `bytes` to a file that must not exist yet (O_EXCL) and is never a symbolic link
    /// followed (O_NOFOLLOW), readable by its owner only.
    private static func create(_ path: String, bytes: Data) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            offset += written
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
