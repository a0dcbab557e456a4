/// Reads a futex wait, and the memory around its word, as the locks of glibc 2.25+ on x86_64
/// lay themselves out: which lock it is and the owner it records. Pure: the bytes come from the
/// target's memory (untrusted), so every read is bounds-checked and memory that fits no layout
/// exactly is `.unrecognized`, never a guessed owner.
///
/// - `pthread_mutex_t`: the futex is `__lock` (offset 0); `__owner` (8) is the holder's tid,
///   `__kind` (16) the type. Normal, recursive, error-checking and adaptive mutexes alike.
/// - `pthread_rwlock_t`: writers wait on `__writers_futex` (12), readers and the first writer
///   on `__wrphase_futex` (8); `__cur_writer` (24) is the writing holder; in a read phase only
///   the number of readers (`__readers >> 3`) is known. Its padding (16, 20, 40) is zero and
///   `__flags` (48) at most 2, which tells it from a mutex.
/// - `FUTEX_LOCK_PI`: the word itself is the owner's tid (Swift's `Mutex` here, PI mutexes).
public enum FutexLockDecoder {
    /// Bytes read before the futex word (a rwlock's futexes lie 8 and 12 bytes into it).
    public static let bytesBefore = 16
    /// Bytes read from the futex word on (a rwlock's `__flags` lies 40 bytes past its
    /// `__wrphase_futex`).
    public static let bytesAfter = 48

    /// How the thread waits on the word.
    public enum Wait: Sendable, Equatable {
        /// `FUTEX_WAIT`, `FUTEX_WAIT_BITSET`, `FUTEX_WAIT_REQUEUE_PI`: the word is any lock's.
        case plain
        /// `FUTEX_LOCK_PI`, `FUTEX_LOCK_PI2`: the word holds the owner's tid.
        case priorityInheritance
    }

    /// What the memory says.
    public struct Decoded: Sendable, Equatable {
        public var layout: LockLayout
        /// The recorded owner's tid; nil when the lock records none.
        public var ownerTid: Int32?
        /// Readers holding a rwlock in its read phase.
        public var readers: UInt32?

        public init(layout: LockLayout, ownerTid: Int32? = nil, readers: UInt32? = nil) {
            self.layout = layout
            self.ownerTid = ownerTid
            self.readers = readers
        }
    }

    /// The futex word's address and how the thread waits on it, when `syscall` is a futex wait
    /// (`futex_waitv` waits on several words and is not read).
    public static func wait(_ syscall: SyscallInfo) -> (address: UInt64, wait: Wait)? {
        guard syscall.name == "futex", syscall.arguments.count >= 2 else { return nil }
        let address = syscall.arguments[0]
        // FUTEX_CMD_MASK: the private and clock flags aside.
        let command = syscall.arguments[1] & 0xFFFF_FFFF & ~UInt64(128 | 256)
        switch command {
        case 0, 9, 11: return address == 0 || address % 4 != 0 ? nil : (address, .plain)
        case 6, 13: return address == 0 || address % 4 != 0 ? nil : (address, .priorityInheritance)
        default: return nil
        }
    }

    /// Decodes the lock around the word: `before` holds the `bytesBefore` bytes preceding it
    /// (shorter or empty when unreadable), `after` the word and what follows (up to `bytesAfter`).
    public static func decode(_ wait: Wait, before: [UInt8], after: [UInt8]) -> Decoded {
        let memory = Memory(before: before, after: after)
        guard let word = memory.u32(0) else { return Decoded(layout: .unrecognized) }
        if wait == .priorityInheritance {
            let owner = Int32(bitPattern: word & 0x3FFF_FFFF)
            return Decoded(layout: .priorityInheritance, ownerTid: owner > 0 ? owner : nil)
        }
        return mutex(memory, word: word) ?? rwlock(memory, word: word) ?? Decoded(layout: .unrecognized)
    }

    /// A `pthread_mutex_t` whose `__lock` is the word: locked, an owner, a known `__kind`.
    private static func mutex(_ memory: Memory, word: UInt32) -> Decoded? {
        guard word != 0, let owner = memory.i32(8), owner > 0, let kind = memory.i32(16), kind >= 0,
            kind & ~Self.knownKindBits == 0
        else { return nil }
        let layouts: [LockLayout] = [.normalMutex, .recursiveMutex, .errorCheckMutex, .adaptiveMutex]
        return Decoded(layout: layouts[Int(kind & 3)], ownerTid: owner)
    }

    /// `PTHREAD_MUTEX_KIND_MASK_NP` (3) and the robust (16), PI (32), PP (64), shared (128) and
    /// elision (256, 512) flags.
    static let knownKindBits: Int32 = 0x3 | 0x10 | 0x20 | 0x40 | 0x80 | 0x100 | 0x200

    /// A `pthread_rwlock_t` whose `__writers_futex` (12) or `__wrphase_futex` (8) is the word.
    private static func rwlock(_ memory: Memory, word: UInt32) -> Decoded? {
        // A waiter marks the word used (PTHREAD_RWLOCK_FUTEX_USED) before it sleeps on it.
        guard word & 2 != 0 else { return nil }
        for offset in [12, 8] {
            let base = -offset
            guard let readers = memory.u32(base), let curWriter = memory.i32(base + 24),
                memory.u32(base + 16) == 0, memory.u32(base + 20) == 0, memory.u32(base + 40) == 0,
                memory.u32(base + 44) == 0, let shared = memory.u32(base + 28), shared == 0 || shared == 128,
                let flags = memory.u32(base + 48), flags <= 2
            else { continue }
            // Bit 0 of either futex: a writer owns the lock (writers futex) or it is in a write
            // phase (wrphase futex).
            if word & 1 != 0 {
                guard curWriter > 0 else { continue }
                return Decoded(layout: .rwlockWriter, ownerTid: curWriter)
            }
            guard offset == 8, readers >> 3 > 0 else { continue }
            return Decoded(layout: .rwlockReaders, readers: readers >> 3)
        }
        return nil
    }

    /// The bytes around the word, addressed relative to it.
    private struct Memory {
        var before: [UInt8]
        var after: [UInt8]

        func u32(_ offset: Int) -> UInt32? {
            var value: UInt32 = 0
            for index in 0..<4 {
                guard let byte = byte(offset + index) else { return nil }
                value |= UInt32(byte) << (8 * index)
            }
            return value
        }

        func i32(_ offset: Int) -> Int32? { u32(offset).map { Int32(bitPattern: $0) } }

        private func byte(_ offset: Int) -> UInt8? {
            if offset >= 0 { return offset < after.count ? after[offset] : nil }
            let index = before.count + offset
            return index >= 0 ? before[index] : nil
        }
    }
}
