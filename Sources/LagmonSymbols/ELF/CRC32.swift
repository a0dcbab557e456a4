/// CRC-32 (IEEE 802.3, reflected polynomial 0xedb88320, the one zlib and `.gnu_debuglink`
/// use): what proves a debug file found by name is the one an image was stripped against.
enum CRC32 {
    /// The checksum of `bytes` continued from `crc` (0 to start).
    static func update(_ crc: UInt32, _ bytes: [UInt8]) -> UInt32 {
        var value = ~crc
        for byte in bytes { value = table[Int((value ^ UInt32(byte)) & 0xff)] ^ (value >> 8) }
        return ~value
    }

    /// The checksum of every byte `reader` reads, in 1 MiB pieces; nil when a read fails or the
    /// file is over `limit` bytes (a debug file that large is refused rather than read).
    static func of(_ reader: ELFFileReader, limit: UInt64 = 2 << 30) -> UInt32? {
        guard reader.size <= limit else { return nil }
        var crc: UInt32 = 0
        var offset: UInt64 = 0
        while offset < reader.size {
            let count = Int(min(reader.size - offset, 1 << 20))
            guard let bytes = reader.read(at: offset, count: count) else { return nil }
            crc = update(crc, bytes)
            offset += UInt64(count)
        }
        return crc
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xedb8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
}
