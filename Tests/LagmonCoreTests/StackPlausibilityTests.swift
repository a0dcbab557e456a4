import LagmonCore
import Testing

struct StackPlausibilityTests {
    static let map = ProcessMemoryMap([
        MemoryMapping(start: 0x1000, end: 0x2000, permissions: "r--p", fileOffset: 0, path: "/bin/a", inode: 1),
        MemoryMapping(start: 0x2000, end: 0x3000, permissions: "r-xp", fileOffset: 0x1000, path: "/bin/a", inode: 1),
        MemoryMapping(start: 0x7000, end: 0x8000, permissions: "r-xp", fileOffset: 0, path: "[vdso]"),
    ])

    @Test func stacksInExecutableMemoryKeepTheirOutcome() {
        #expect(StackPlausibility.outcome(.complete, addresses: [0x7010, 0x2010, 0x2fff], map: Self.map) == .complete)
        #expect(StackPlausibility.outcome(.truncated, addresses: [0x2000], map: Self.map) == .truncated)
    }

    @Test func aJunkCallerMakesTheStackAnUnwindError() {
        // A caller guessed from the frame pointer in the vDSO: an address in read-only data.
        #expect(StackPlausibility.outcome(.complete, addresses: [0x7010, 0x1800, 0x2010], map: Self.map) == .failed)
        // Outside every mapping.
        #expect(StackPlausibility.outcome(.complete, addresses: [0x7010, 0x9000], map: Self.map) == .failed)
        // A return address is looked up inside its call: 0x2000 is the byte after 0x1fff (data).
        #expect(StackPlausibility.outcome(.complete, addresses: [0x7010, 0x2000], map: Self.map) == .failed)
    }
}
