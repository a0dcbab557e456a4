import LagmonCore
import Testing

@testable import LagmonSymbols

/// The loader's placement of segments, on the layouts of real programs (the two-stall fixture
/// as each linker lays it out, its /proc/PID/maps as the kernel showed it).
struct ELFSegmentsTests {
    /// lld 14, `-pie`: read-only data and code share file page 0, mapped twice 0x1000 apart.
    static let lld = ELFSegments(
        isFixedAddress: false,
        segments: [
            .init(fileOffset: 0, virtualAddress: 0, fileSize: 0xa74),
            .init(fileOffset: 0xa80, virtualAddress: 0x1a80, fileSize: 0x470, isExecutable: true),
            .init(fileOffset: 0xef0, virtualAddress: 0x2ef0, fileSize: 0x1d8),
            .init(fileOffset: 0x10c8, virtualAddress: 0x40c8, fileSize: 0x88, memorySize: 0xa0),
        ])
    static let lldMaps = """
        55ecd2ee3000-55ecd2ee4000 r--p 00000000 fe:00 16228469 /tmp/lld-pie
        55ecd2ee4000-55ecd2ee5000 r-xp 00000000 fe:00 16228469 /tmp/lld-pie
        55ecd2ee5000-55ecd2ee7000 r--p 00000000 fe:00 16228469 /tmp/lld-pie
        55ecd2ee7000-55ecd2ee8000 rw-p 00001000 fe:00 16228469 /tmp/lld-pie
        """

    @Test func everyMappingOfAnLLDImageGivesTheLoadersBias() {
        let maps = MemoryMapParser.parse(Self.lldMaps)
        #expect(maps.map { Self.lld.loadBias(in: $0) } == Array(repeating: 0x55ec_d2ee_3000, count: 4))
    }

    @Test func codeAddressesLandInTheExecutableSegment() throws {
        let code = try #require(MemoryMapParser.parse(Self.lldMaps).first { $0.isExecutable })
        // The first stall function of that build starts at 0x1bcd.
        #expect(Self.lld.virtualAddress(of: 0x55ec_d2ee_3000 + 0x1bcd, in: code) == 0x1bcd)
        // The executable mapping's first 0xa80 bytes are the read-only segment's page, mapped
        // again: no segment holds them there.
        #expect(Self.lld.virtualAddress(of: 0x55ec_d2ee_3000 + 0x1100, in: code) == nil)
    }

    /// mold 1.10, `-pie`: the same sharing, and a RELRO segment whose zero-filled tail reaches the
    /// next page.
    @Test func moldsLayoutGivesOneBiasToo() {
        let mold = ELFSegments(
            isFixedAddress: false,
            segments: [
                .init(fileOffset: 0, virtualAddress: 0, fileSize: 0x9b0),
                .init(fileOffset: 0x9b0, virtualAddress: 0x19b0, fileSize: 0x48b, isExecutable: true),
                .init(fileOffset: 0xe40, virtualAddress: 0x2e40, fileSize: 0x220, memorySize: 0x11c0),
                .init(fileOffset: 0x1060, virtualAddress: 0x4060, fileSize: 0x80, memorySize: 0x98),
            ])
        let maps = MemoryMapParser.parse(
            """
            560364406000-560364407000 r--p 00000000 fe:00 16228475 /tmp/mold-pie
            560364407000-560364408000 r-xp 00000000 fe:00 16228475 /tmp/mold-pie
            560364408000-56036440a000 r--p 00000000 fe:00 16228475 /tmp/mold-pie
            56036440a000-56036440b000 rw-p 00001000 fe:00 16228475 /tmp/mold-pie
            """)
        #expect(maps.map { mold.loadBias(in: $0) } == Array(repeating: 0x5603_6440_6000, count: 4))
    }

    /// ET_EXEC runs where it was linked, whatever its segments share (lld `-no-pie`).
    @Test func fixedAddressImagesHaveNoBias() throws {
        let image = ELFSegments(
            isFixedAddress: true,
            segments: [
                .init(fileOffset: 0, virtualAddress: 0x20_0000, fileSize: 0x9c4),
                .init(fileOffset: 0x9d0, virtualAddress: 0x20_19d0, fileSize: 0x460, isExecutable: true),
            ])
        let code = MemoryMapping(start: 0x20_1000, end: 0x20_2000, permissions: "r-xp", fileOffset: 0, path: "/x")
        #expect(image.loadBias(in: code) == 0)
        #expect(image.virtualAddress(of: 0x20_1a00, in: code) == 0x20_1a00)
        let elsewhere = MemoryMapping(
            start: 0x20_1000, end: 0x20_2000, permissions: "r-xp", fileOffset: 0x5000, path: "/x")
        #expect(image.loadBias(in: elsewhere) == nil)
    }

    /// GNU ld's default (`-z separate-code`): nothing shared, one segment per mapping.
    @Test func separateCodeMapsOneToOne() {
        let bfd = ELFSegments(
            isFixedAddress: false,
            segments: [
                .init(fileOffset: 0, virtualAddress: 0, fileSize: 0x918),
                .init(fileOffset: 0x1000, virtualAddress: 0x1000, fileSize: 0x475, isExecutable: true),
                .init(fileOffset: 0x2000, virtualAddress: 0x2000, fileSize: 0x22c),
                .init(fileOffset: 0x2dd0, virtualAddress: 0x3dd0, fileSize: 0x298, memorySize: 0x2b0),
            ])
        let code = MemoryMapping(
            start: 0x7000_0000_1000, end: 0x7000_0000_2000, permissions: "r-xp", fileOffset: 0x1000, path: "/x")
        #expect(bfd.loadBias(in: code) == 0x7000_0000_0000)
        // The data segment's writable page (its RELRO page before it, r--p at offset 0x2000, and
        // the read-only segment's, r--p at 0x2000 too, are the one-page case no rule can tell).
        let data = MemoryMapping(
            start: 0x7000_0000_4000, end: 0x7000_0000_5000, permissions: "rw-p", fileOffset: 0x3000, path: "/x")
        #expect(bfd.loadBias(in: data) == 0x7000_0000_0000)
    }

    /// Hostile headers: huge offsets and sizes wrap, never trap.
    @Test func hostileSegmentsNeverTrap() {
        let hostile = ELFSegments(
            isFixedAddress: false,
            segments: [
                .init(fileOffset: .max, virtualAddress: .max, fileSize: .max, isExecutable: true),
                .init(fileOffset: 0, virtualAddress: .max - 5, fileSize: .max),
            ])
        let mapping = MemoryMapping(start: 0x1000, end: 0x2000, permissions: "r-xp", fileOffset: 0, path: "/x")
        _ = hostile.loadBias(in: mapping)
        _ = hostile.virtualAddress(of: 0x1800, in: mapping)
        let empty = MemoryMapping(start: 0x1000, end: 0x1000, permissions: "r-xp", fileOffset: 0, path: "/x")
        #expect(hostile.virtualAddress(of: 0x1000, in: empty) == nil)
    }
}
