import LagmonCore
import Testing

struct ProcessMemoryMapTests {
    /// A slice of the demo's real map: a PIE linked by lld (text first), glibc (text second), a
    /// library with a `---p` gap, anonymous memory, and the vDSO.
    static let maps = ProcessMemoryMap(
        mapsText: """
            561c8bf09000-561c8c0bb000 r-xp 00000000 fe:00 5367965                    /work/bin/lagmon-demo
            561c8c0bc000-561c8c0c4000 r--p 001b2000 fe:00 5367965                    /work/bin/lagmon-demo
            561c8c0c4000-561c8c0d5000 rw-p 001ba000 fe:00 5367965                    /work/bin/lagmon-demo
            561c8c0d5000-561c8c0e1000 rw-p 00000000 00:00 0 
            7fcd2da45000-7fcd2da6b000 r--p 00000000 fe:00 333151                     /usr/lib/libc.so.6
            7fcd2da6b000-7fcd2dbc1000 r-xp 00026000 fe:00 333151                     /usr/lib/libc.so.6
            7fcd2dbc1000-7fcd2dc14000 r--p 0017c000 fe:00 333151                     /usr/lib/libc.so.6
            7fcd2e600000-7fcd2eaef000 r-xp 00000000 fe:00 2250                       /opt/swift/libFoundation.so
            7fcd2eaef000-7fcd2eaf0000 ---p 004ef000 fe:00 2250                       /opt/swift/libFoundation.so
            7fcd2eaf0000-7fcd2eb09000 r--p 004ef000 fe:00 2250                       /opt/swift/libFoundation.so
            7fcd2f6d3000-7fcd2f6d5000 r-xp 00000000 00:00 0                          [vdso]
            """)

    @Test(
        arguments: [
            (0x561c_8bf0_9000, 0x561c_8bf0_9000),  // first byte
            (0x561c_8c0b_afff, 0x561c_8bf0_9000),  // last byte
            (0x561c_8c0b_b000, nil),  // one past the end: the page gap before the next mapping
            (0x561c_8c0d_5100, 0x561c_8c0d_5000),  // anonymous
            (0x7fcd_2da6_b000, 0x7fcd_2da6_b000),  // adjacent mappings: the later one
            (0x7fcd_2da6_afff, 0x7fcd_2da4_5000),
            (0x7fcd_2f6d_4000, 0x7fcd_2f6d_3000),
            (0x7fcd_2f6d_5000, nil),  // past the last mapping
            (0x1, nil),  // before the first
            (0, nil),
            (UInt64.max, nil),
        ] as [(UInt64, UInt64?)])
    func findsTheMappingContainingAnAddress(address: UInt64, start: UInt64?) {
        #expect(Self.maps.mapping(containing: address)?.start == start)
    }

    @Test(
        arguments: [
            // lld PIE: the text is the first mapping.
            (0x561c_8bf1_0000, "lagmon-demo", "/work/bin/lagmon-demo", 0x561c_8bf0_9000),
            (0x561c_8c0c_0000, "lagmon-demo", "/work/bin/lagmon-demo", 0x561c_8bf0_9000),
            // glibc: the text is the second mapping, at file offset 0x26000.
            (0x7fcd_2da7_0000, "libc.so.6", "/usr/lib/libc.so.6", 0x7fcd_2da4_5000),
            (0x7fcd_2dbc_1000, "libc.so.6", "/usr/lib/libc.so.6", 0x7fcd_2da4_5000),
            // Across the `---p` gap.
            (0x7fcd_2eaf_0000, "libFoundation.so", "/opt/swift/libFoundation.so", 0x7fcd_2e60_0000),
            (0x7fcd_2f6d_3010, "[vdso]", nil, 0x7fcd_2f6d_3000),
        ] as [(UInt64, String, String?, UInt64)])
    func findsTheModuleAndItsLoadBase(address: UInt64, name: String, path: String?, loadBase: UInt64) throws {
        let module = try #require(Self.maps.module(containing: address))
        #expect(module.name == name)
        #expect(module.path == path)
        #expect(module.loadBase == loadBase)
    }

    /// What a stall keeps for symbolizing: the files and the vDSO, not anonymous memory, and
    /// every address resolves to the same module and load base as in the full map.
    @Test func imagesKeepFilesAndTheVDSOOnly() {
        let images = Self.maps.images
        #expect(images.mappings.count == Self.maps.mappings.count - 1)
        #expect(images.mappings.allSatisfy { !$0.path.isEmpty })
        for address: UInt64 in [0x561c_8bf0_9000, 0x7fcd_2da6_b000, 0x7fcd_2eaf_0010, 0x7fcd_2f6d_4000] {
            #expect(images.module(containing: address) == Self.maps.module(containing: address))
        }
        #expect(images.mapping(containing: 0x561c_8c0d_5100) == nil)
    }

    @Test(arguments: [UInt64(0x1), 0x561c_8c0d_5100, 0x561c_8c0b_b000])
    func anonymousMemoryAndGapsHaveNoModule(address: UInt64) {
        #expect(Self.maps.module(containing: address) == nil)
    }

    @Test func aFileMappedTwiceHasTwoLoadBases() throws {
        let maps = ProcessMemoryMap(
            mapsText: """
                7f0000000000-7f0000001000 r--p 00000000 08:01 7 /lib/libx.so
                7f0000001000-7f0000002000 r-xp 00001000 08:01 7 /lib/libx.so
                7f0000002000-7f0000003000 r--p 00000000 08:01 7 /lib/libx.so
                7f0000003000-7f0000004000 r-xp 00001000 08:01 7 /lib/libx.so
                """)
        #expect(try #require(maps.module(containing: 0x7f00_0000_1800)).loadBase == 0x7f00_0000_0000)
        #expect(try #require(maps.module(containing: 0x7f00_0000_3800)).loadBase == 0x7f00_0000_2000)
    }

    @Test func aDeletedFileKeepsItsNameWithoutThePath() throws {
        let maps = ProcessMemoryMap(
            mapsText: "7f0000000000-7f0000001000 r-xp 00000000 08:01 7 /tmp/lagmon-demo (deleted)")
        let module = try #require(maps.module(containing: 0x7f00_0000_0010))
        #expect(module.name == "lagmon-demo")
        #expect(module.path == "/tmp/lagmon-demo")
        #expect(module.mapping.isDeleted)
    }

    @Test func sortsMappingsGivenOutOfOrder() {
        let high = MemoryMapping(start: 0x3000, end: 0x4000, permissions: "r-xp", fileOffset: 0, path: "/b")
        let low = MemoryMapping(start: 0x1000, end: 0x2000, permissions: "r-xp", fileOffset: 0, path: "/a")
        let maps = ProcessMemoryMap([high, low])
        #expect(maps.mappings == [low, high])
        #expect(maps.mapping(containing: 0x1800) == low)
        #expect(maps.mapping(containing: 0x3800) == high)
        #expect(maps.mapping(containing: 0x2800) == nil)
    }

    @Test func anEmptyMapHoldsNothing() {
        #expect(ProcessMemoryMap([]).mapping(containing: 0x1000) == nil)
        #expect(ProcessMemoryMap(mapsText: "").module(containing: 0x1000) == nil)
    }
}
