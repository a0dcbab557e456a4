import Glibc
import Testing

@testable import LagmonLinux

/// The sampler copies a stopped thread's stack on its own thread only when pagemap says every
/// page of the copy is resident; otherwise the copy goes to the memory worker (bounded), which
/// on a loaded machine costs the worker's wait for a CPU inside the pause.
struct ResidentPagesTests {
    /// A whole stack copy, however it straddles pages, is looked up at once: a lookup limit below
    /// the copy's span sent every copy to the worker.
    @Test func aWholeStackCopyOfTouchedPagesIsResident() throws {
        let pages = StackSampler.stackCopyBytes / 4096 + 3
        let length = pages * 4096
        let region = try #require(
            mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), "mmap")
        #expect(region != MAP_FAILED)
        defer { munmap(region, length) }
        let base = UInt64(UInt(bitPattern: region))
        let resident = try #require(ResidentPages(pid: getpid()))
        // Nothing touched yet: not resident.
        #expect(!resident.areResident(base + 100, length: StackSampler.stackCopyBytes))
        memset(region, 1, length)
        // Starting anywhere in a page, the copy spans stackCopyBytes / 4096 + 2 pages at most.
        for offset: UInt64 in [0, 100, 4095] {
            #expect(resident.areResident(base + offset, length: StackSampler.stackCopyBytes), "offset \(offset)")
        }
        // One page given back: the copy over it is not resident.
        madvise(region.advanced(by: 4096 * 2), 4096, MADV_DONTNEED)
        #expect(!resident.areResident(base + 100, length: StackSampler.stackCopyBytes))
    }
}
