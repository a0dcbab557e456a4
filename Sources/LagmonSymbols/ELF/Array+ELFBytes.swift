/// Little-endian loads from the bytes of an ELF structure; out-of-range reads give zero.
extension [UInt8] {
    /// The little-endian `Elf64_Half` at byte `offset` (0 when out of range).
    public func elf16(_ offset: Int) -> UInt16 { UInt16(truncatingIfNeeded: elfLoad(offset, 2)) }
    /// The little-endian `Elf64_Word` at byte `offset` (0 when out of range).
    public func elf32(_ offset: Int) -> UInt32 { UInt32(truncatingIfNeeded: elfLoad(offset, 4)) }
    /// The little-endian `Elf64_Addr`/`Elf64_Off`/`Elf64_Xword` at byte `offset` (0 when out of range).
    public func elf64(_ offset: Int) -> UInt64 { elfLoad(offset, 8) }

    private func elfLoad(_ offset: Int, _ width: Int) -> UInt64 {
        guard offset >= 0, offset <= count - width else { return 0 }
        var value: UInt64 = 0
        for index in (0..<width).reversed() { value = value << 8 | UInt64(self[offset + index]) }
        return value
    }
}
