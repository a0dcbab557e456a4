import LagmonCore
import Testing

/// Fault addresses placed in a process's memory map: files, anonymous memory, and addresses no
/// mapping holds (hostile or stale).
struct MajorFaultAttributionTests {
    static let map = ProcessMemoryMap(
        mapsText: """
            7f0000000000-7f0001000000 r--s 00000000 fe:00 4242 /var/lib/app/index.db
            7f0001000000-7f0001001000 rw-p 00000000 00:00 0 
            7f0002000000-7f0002100000 r-xp 00000000 fe:00 17 /usr/lib/libc.so.6 (deleted)
            7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
            """)

    @Test func faultsAreCountedPerFileMostFirst() {
        let faults: [UInt64: UInt64] = [
            0x7f00_0000_0000: 5, 0x7f00_0000_f000: 7, 0x7f00_0100_0000: 2, 0x7f00_0200_0000: 2,
            0x7ffd_0000_0000: 1, 0x10: 3, UInt64.max & ~0xfff: 1,
        ]
        #expect(
            MajorFaultAttribution.files(faults, map: Self.map, limit: 10) == [
                PageFaultFile(path: "/var/lib/app/index.db", faults: 12),
                PageFaultFile(path: "[unmapped]", faults: 4),
                // Ties by path; a deleted file keeps its path without the marker.
                PageFaultFile(path: "/usr/lib/libc.so.6", faults: 2), PageFaultFile(path: "[anonymous]", faults: 2),
                PageFaultFile(path: "[stack]", faults: 1),
            ])
        #expect(MajorFaultAttribution.files(faults, map: Self.map).count == 3)
        #expect(MajorFaultAttribution.files([:], map: Self.map).isEmpty)
        #expect(
            MajorFaultAttribution.files(faults, map: ProcessMemoryMap([]), limit: 1) == [
                PageFaultFile(path: "[unmapped]", faults: 21)
            ])
    }
}
