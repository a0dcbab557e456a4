import LagmonCore
import Testing

/// glibc's lock layouts read from the bytes around a futex word, and memory that fits none.
struct FutexLockDecoderTests {
    /// The 16 bytes before the word and the 48 from it, with 32-bit `values` at offsets relative
    /// to the word.
    static func memory(_ values: [Int: UInt32]) -> (before: [UInt8], after: [UInt8]) {
        var before = [UInt8](repeating: 0, count: FutexLockDecoder.bytesBefore)
        var after = [UInt8](repeating: 0, count: FutexLockDecoder.bytesAfter)
        for (offset, value) in values {
            for index in 0..<4 {
                let byte = UInt8(truncatingIfNeeded: value >> (8 * UInt32(index)))
                let at = offset + index
                if at >= 0 { after[at] = byte } else { before[before.count + at] = byte }
            }
        }
        return (before, after)
    }

    static func futex(op: UInt64, address: UInt64 = 0x7f00_0000_1000) -> SyscallInfo {
        SyscallInfo(number: 202, name: "futex", arguments: [address, op, 2, 0, 0, 0])
    }

    @Test(arguments: [
        (0, LockLayout.normalMutex), (1, .recursiveMutex), (2, .errorCheckMutex), (3, .adaptiveMutex),
        // Private and robust flags do not change the type.
        (0x80 | 2, .errorCheckMutex), (0x10, .normalMutex),
    ])
    func aMutexRecordsItsOwnerBesideTheWord(_ kind: Int, _ layout: LockLayout) {
        let (before, after) = Self.memory([0: 2, 8: 4093, 12: 1, 16: UInt32(kind)])
        let decoded = FutexLockDecoder.decode(.plain, before: before, after: after)
        #expect(decoded.layout == layout)
        #expect(decoded.ownerTid == 4093)
    }

    @Test func aRwlockWriterIsReadFromEitherFutex() {
        // A reader waits on __wrphase_futex (8): write phase, __cur_writer at 24.
        let reader = Self.memory([-8: 0x2, 0: 3, 16: 4093])
        #expect(
            FutexLockDecoder.decode(.plain, before: reader.before, after: reader.after)
                == .init(layout: .rwlockWriter, ownerTid: 4093))
        // A writer waits on __writers_futex (12).
        let writer = Self.memory([-12: 0x2, -8: 1, 0: 3, 12: 4093])
        #expect(
            FutexLockDecoder.decode(.plain, before: writer.before, after: writer.after)
                == .init(layout: .rwlockWriter, ownerTid: 4093))
    }

    @Test func aRwlockInItsReadPhaseCountsReadersAndNamesNoOwner() {
        // Two readers (2 << 3) and the primary writer's WRLOCKED bit; wrphase futex 0|USED.
        let (before, after) = Self.memory([-8: 2 << 3 | 2, 0: 2])
        #expect(
            FutexLockDecoder.decode(.plain, before: before, after: after) == .init(layout: .rwlockReaders, readers: 2))
    }

    @Test func aPIWordIsItsOwner() {
        let (before, after) = Self.memory([0: 0x8000_0000 | 4093])
        #expect(
            FutexLockDecoder.decode(.priorityInheritance, before: before, after: after)
                == .init(layout: .priorityInheritance, ownerTid: 4093))
        let free = Self.memory([:])
        #expect(FutexLockDecoder.decode(.priorityInheritance, before: free.before, after: free.after).ownerTid == nil)
    }

    @Test func memoryThatFitsNoLayoutNamesNoOwner() {
        let cases: [[Int: UInt32]] = [
            [:],  // all zero
            [0: 2, 8: 4093, 16: 0x400],  // an unknown mutex kind bit
            [0: 2, 8: 4093, 16: 0xFFFF_FFFF],  // a negative kind
            [0: 0, 8: 4093, 16: 0],  // an unlocked word
            [-8: 0x2, 0: 3, 16: 4093, 40: 7],  // rwlock flags out of range
            [-8: 0x2, 0: 1, 16: 4093],  // rwlock word not marked used
            [-8: 0x2, 0: 3, 16: 4093, 32: 1],  // rwlock padding not zero
            [-8: 0, 0: 2],  // read phase without readers
        ]
        for values in cases {
            let (before, after) = Self.memory(values)
            let decoded = FutexLockDecoder.decode(.plain, before: before, after: after)
            #expect(decoded == .init(layout: .unrecognized), "\(values)")
        }
    }

    @Test func truncatedOrMissingMemoryNeverTrapsAndNamesNoOwner() {
        let (before, after) = Self.memory([-8: 0x2, 0: 3, 16: 4093])
        for length in 0..<after.count {
            let decoded = FutexLockDecoder.decode(.plain, before: before, after: Array(after.prefix(length)))
            // A rwlock needs its flags at 40; with fewer bytes it is not recognised.
            if length < 44 { #expect(decoded.ownerTid == nil, "\(length) bytes") }
        }
        #expect(FutexLockDecoder.decode(.plain, before: [], after: after).layout == .unrecognized)
        #expect(FutexLockDecoder.decode(.priorityInheritance, before: [], after: [1, 2]).layout == .unrecognized)
    }

    @Test func onlyFutexWaitsOnAnAlignedWordAreRead() {
        #expect(FutexLockDecoder.wait(Self.futex(op: 0x80))?.wait == .plain)  // FUTEX_WAIT_PRIVATE
        #expect(FutexLockDecoder.wait(Self.futex(op: 0x89))?.wait == .plain)  // FUTEX_WAIT_BITSET_PRIVATE
        #expect(FutexLockDecoder.wait(Self.futex(op: 0x189))?.wait == .plain)  // … with CLOCK_REALTIME
        #expect(FutexLockDecoder.wait(Self.futex(op: 0x86))?.wait == .priorityInheritance)  // FUTEX_LOCK_PI
        #expect(FutexLockDecoder.wait(Self.futex(op: 0x81)) == nil)  // FUTEX_WAKE
        #expect(FutexLockDecoder.wait(Self.futex(op: 0x80, address: 0x7f00_0000_1002)) == nil)
        #expect(FutexLockDecoder.wait(Self.futex(op: 0x80, address: 0)) == nil)
        #expect(FutexLockDecoder.wait(SyscallInfo(number: 0, name: "read", arguments: [3, 0x80])) == nil)
        #expect(FutexLockDecoder.wait(SyscallInfo(number: 202, name: "futex", arguments: [])) == nil)
    }
}
