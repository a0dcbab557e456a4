import LagmonCore
import Testing

/// The async context walk over hostile memory: only what a well-formed chain says is kept.
struct AsyncCallerChainTests {
    static let map = ProcessMemoryMap(
        mapsText: """
            00400000-00500000 r-xp 00000000 fe:00 11                                 /work/bin/app
            01000000-01100000 rw-p 00000000 00:00 0                                  [heap]
            7f0000000000-7f0000100000 r-xp 00000000 fe:00 12                         /opt/swift/libswift_Concurrency.so
            7f0000200000-7f0000300000 r-xp 00000000 fe:00 13                         /usr/lib/libc.so.6
            7ffd00000000-7ffd00100000 rw-p 00000000 00:00 0                          [stack]
            """)

    /// usleep (libc) <- inner (app, the job: its caller is the runtime) <- runtime <- runtime.
    static let addresses: [UInt64] = [0x7f00_0020_1000, 0x40_1000, 0x7f00_0000_1000, 0x7f00_0000_2000]
    static let framePointers: [UInt64] = [0x7ffd_0000_0f00, 0x7ffd_0000_1000, 0x7ffd_0000_2000, 0]
    /// Each frame's stack pointer: inner's caller's is inner's frame pointer + 16.
    static let stackPointers: [UInt64] = [0x7ffd_0000_0e00, 0x7ffd_0000_0f10, 0x7ffd_0000_1010, 0x7ffd_0000_2010]
    /// inner's frame (its return address above its frame pointer), its context (saved at fp - 8)
    /// -> middle's -> outer's -> none.
    static let chain: [UInt64: UInt64] = [
        0x7ffd_0000_1008: 0x7f00_0000_1000,
        0x7ffd_0000_0ff8: 0x100_0100,
        0x100_0100: 0x100_0200, 0x100_0108: 0x40_2000,
        0x100_0200: 0x100_0300, 0x100_0208: 0x40_3000,
        0x100_0300: 0, 0x100_0308: 0x7f00_0000_3000,
    ]

    static func callers(
        _ memory: [UInt64: UInt64], addresses: [UInt64] = addresses, framePointers: [UInt64] = framePointers
    ) -> (Int, [UInt64])? {
        AsyncCallerChain.callers(
            addresses: addresses, framePointers: framePointers, stackPointers: stackPointers, map: map
        ) { memory[$0] }
        .map { ($0.index, $0.callers) }
    }

    @Test func takesTheFramePointerFromTheStackPointerWhenTheRegisterIsWrong() throws {
        // The unwound register is the caller's frame pointer, not inner's: no return address of
        // inner's above it; the caller's stack pointer less 16 has one.
        let wrong = [Self.framePointers[0], 0x7ffd_0000_2000, 0x7ffd_0000_2000, 0]
        let (index, callers) = try #require(Self.callers(Self.chain, framePointers: wrong))
        #expect(index == 1)
        #expect(callers == [0x40_2000, 0x40_3000, 0x7f00_0000_3000])
        // Neither has it: no chain.
        var memory = Self.chain
        memory.removeValue(forKey: 0x7ffd_0000_1008)
        #expect(Self.callers(memory) == nil)
    }

    @Test func followsParentLinksFromTheJobTheRuntimeRuns() throws {
        let (index, callers) = try #require(Self.callers(Self.chain))
        #expect(index == 1)
        #expect(callers == [0x40_2000, 0x40_3000, 0x7f00_0000_3000])
    }

    @Test func stopsAtACycle() throws {
        var memory = Self.chain
        memory[0x100_0300] = 0x100_0100
        let (_, callers) = try #require(Self.callers(memory))
        #expect(callers == [0x40_2000, 0x40_3000, 0x7f00_0000_3000])
    }

    @Test func stopsAtAResumeAddressOutsideCode() throws {
        var memory = Self.chain
        memory[0x100_0208] = 0x100_0000  // the heap
        let (_, callers) = try #require(Self.callers(memory))
        #expect(callers == [0x40_2000])
    }

    @Test func stopsAtAMisalignedOrUnreadableContext() throws {
        var memory = Self.chain
        memory[0x100_0200] = 0x100_0303
        #expect(try #require(Self.callers(memory)).1 == [0x40_2000, 0x40_3000])
        memory = Self.chain
        memory.removeValue(forKey: 0x100_0300)
        #expect(try #require(Self.callers(memory)).1 == [0x40_2000, 0x40_3000])
    }

    @Test func isBounded() throws {
        // A chain that never ends (each context's parent is the next one).
        var memory: [UInt64: UInt64] = [0x7ffd_0000_0ff8: 0x100_0000, 0x7ffd_0000_1008: 0x7f00_0000_1000]
        for step in UInt64(0)..<1000 {
            memory[0x100_0000 + step * 16] = 0x100_0000 + (step + 1) * 16
            memory[0x100_0008 + step * 16] = 0x40_2000
        }
        let (_, callers) = try #require(Self.callers(memory))
        #expect(callers.count == AsyncCallerChain.maxCallers)
    }

    @Test func needsAnAsyncFrameAndAReadableContext() {
        // No frame outside the runtime is called from it.
        #expect(Self.callers(Self.chain, addresses: [0x7f00_0020_1000, 0x40_1000, 0x40_1100]) == nil)
        // The context slot cannot be read.
        var memory = Self.chain
        memory.removeValue(forKey: 0x7ffd_0000_0ff8)
        #expect(Self.callers(memory) == nil)
        // A null context.
        memory[0x7ffd_0000_0ff8] = 0
        #expect(Self.callers(memory) == nil)
    }
}
