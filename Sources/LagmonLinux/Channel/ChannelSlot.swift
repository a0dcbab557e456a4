import CLagmonLinux
import CLagmonShared
import Glibc
import LagmonCore

/// lagmon's view of one loop's slot in the channel: read-only, except for the watchdog's
/// parking flag and the wake-up word it sleeps on.
///
/// The target writes the slot, so nothing in it is trusted: the identity (process, thread,
/// claim) is read once, when the slot is looked at, and never again, so a target cannot change
/// the thread lagmon samples after the session checked it; every index is bounds-checked.
public struct ChannelSlot: Sendable {
    /// The channel holding the slot (kept alive by this reference).
    public let channel: Channel
    /// The slot's index in the channel.
    public let index: Int
    /// Whether a probe had claimed and published the slot when it was read.
    public let isActive: Bool
    /// The observed thread, as the probe named it.
    public let thread: ThreadRef
    /// The observed thread's process, as the probe named it.
    public let pid: Int32
    /// When observation of the loop began (channel clock): the claim, or for a wait-call loop
    /// its first qualifying wait.
    public let claimedNs: UInt64
    /// When the probe published the slot (channel clock): lagmon could not look earlier.
    public let publishedNs: UInt64
    /// The claiming process's entry in the channel's process table, if it names one.
    public let processIndex: Int?
    /// The slot's first byte in the channel's mapping (kept alive by `channel`).
    private var base: UnsafeMutableRawPointer { channel.slotPointer(index) }

    init(channel: Channel, index: Int) {
        self.channel = channel
        self.index = index
        let base = channel.slotPointer(index)
        func field<T>(_ path: KeyPath<lagmon_slot, T>) -> UnsafeMutablePointer<T> { Self.field(base, path) }
        // State first (acquire): the identity was written before the probe published it.
        isActive = lagmon_load_u32(field(\.state)) == LAGMON_SLOT_ACTIVE.rawValue
        pid = lagmon_load_i32(field(\.pid))
        let raw = UnsafeRawPointer(field(\.thread_name))
        // At most 15 bytes, as the kernel keeps a thread's name: the target writes this field,
        // and 16 bytes with no terminator made a name the report's schema refuses.
        let bytes = (0..<16).map { raw.load(fromByteOffset: $0, as: UInt8.self) }.prefix { $0 != 0 }.prefix(15)
        thread = ThreadRef(tid: lagmon_load_i32(field(\.tid)), name: String(decoding: bytes, as: UTF8.self))
        claimedNs = lagmon_load_u64(field(\.claimed_ns))
        publishedNs = lagmon_load_u64(field(\.published_ns))
        let process = lagmon_load_u32(field(\.process_index))
        processIndex = process < LAGMON_PROCESS_CAPACITY ? Int(process) : nil
    }

    /// The same slot with the process and thread numbered as lagmon's namespace numbers them
    /// (its probe wrote them from a PID namespace below lagmon's: `NestedPids`).
    func numbered(pid: Int32, tid: Int32) -> ChannelSlot {
        ChannelSlot(copying: self, pid: pid, tid: tid)
    }

    private init(copying slot: ChannelSlot, pid: Int32, tid: Int32) {
        channel = slot.channel
        index = slot.index
        isActive = slot.isActive
        thread = ThreadRef(tid: tid, name: slot.thread.name)
        self.pid = pid
        claimedNs = slot.claimedNs
        publishedNs = slot.publishedNs
        processIndex = slot.processIndex
    }

    /// How the loop is observed, as reports name it.
    public var observerName: String {
        switch lagmon_load_u32(field(\.kind)) {
        case LAGMON_OBSERVER_CFRUNLOOP.rawValue: "cfrunloop"
        case LAGMON_OBSERVER_WAITCALL.rawValue: "waitcall"
        case LAGMON_OBSERVER_SWIFT_MAIN_ACTOR.rawValue: LoopObserver.swiftMainActor
        case LAGMON_OBSERVER_SWIFT_POOL.rawValue: LoopObserver.swiftPool
        case LAGMON_OBSERVER_TOKIO_WORKER.rawValue: LoopObserver.tokioWorker
        default: "unknown"
        }
    }

    /// Whether the slot watches one thread's own loop (a CFRunLoop, a wait-call loop, a tokio
    /// worker's parks), not Swift's main actor or a cooperative pool thread.
    public var isThreadLoop: Bool {
        let kind = lagmon_load_u32(field(\.kind))
        return kind == LAGMON_OBSERVER_CFRUNLOOP.rawValue || kind == LAGMON_OBSERVER_WAITCALL.rawValue
            || kind == LAGMON_OBSERVER_TOKIO_WORKER.rawValue
    }

    /// Whether the slot is a worker of a tokio runtime's pool.
    public var isTokioWorker: Bool {
        lagmon_load_u32(field(\.kind)) == LAGMON_OBSERVER_TOKIO_WORKER.rawValue
    }

    /// Whether the slot is Swift's main actor (its tid follows the thread running its job).
    public var isSwiftMainActor: Bool {
        lagmon_load_u32(field(\.kind)) == LAGMON_OBSERVER_SWIFT_MAIN_ACTOR.rawValue
    }

    /// The loop's current activity and since when.
    public func snapshot() -> LoopSnapshot {
        let word = lagmon_load_u64(field(\.word))
        return LoopSnapshot(
            activity: LoopActivity(bits: lagmon_word_activity(word)), sinceNs: lagmon_word_timestamp(word))
    }

    /// The observer's counters, read now. A wait-call loop has no before-sources transitions: its
    /// passes are its wake-ups (completed busy periods).
    public func counters() -> (
        passes: UInt64, transitions: UInt64, busyCount: UInt64, busyTotalNs: UInt64, busyMaxNs: UInt64, posts: UInt64
    ) {
        let busyCount = lagmon_load_u64(field(\.busy_count))
        // Only a CFRunLoop has before-sources passes.
        let waitcall = lagmon_load_u32(field(\.kind)) != LAGMON_OBSERVER_CFRUNLOOP.rawValue
        return (
            waitcall ? busyCount : lagmon_load_u64(field(\.passes)), lagmon_load_u64(field(\.transitions)),
            lagmon_load_u64(field(\.busy_count)), lagmon_load_u64(field(\.busy_total_ns)),
            lagmon_load_u64(field(\.busy_max_ns)), lagmon_load_u64(field(\.watchdog_posts))
        )
    }

    /// The start of the busy period in progress, if the loop is awake.
    public var openBusySinceNs: UInt64? {
        let since = lagmon_load_u64(field(\.wake_ns))
        return since == UInt64.max ? nil : since
    }

    /// Non-empty busy-period histogram buckets.
    public func busyBuckets() -> [Int: UInt64] {
        let buckets = lagmon_slot_histogram(base.assumingMemoryBound(to: lagmon_slot.self))!
        var counts: [Int: UInt64] = [:]
        for index in 0..<Int(lagmon_histogram_bucket_count()) {
            let count = lagmon_load_u64(buckets + index)
            if count > 0 { counts[index] = count }
        }
        return counts
    }

    /// Reads the stall records written since `cursor` (records ever read) and advances it.
    /// Returns the records and how many were overwritten before they could be read. A head that
    /// went backwards (only a hostile target moves it so) yields nothing and leaves the cursor.
    public func drainStalls(cursor: inout UInt64) -> (records: [StallRecord], lost: UInt64) {
        let capacity = UInt64(LAGMON_STALL_RING_CAPACITY)
        let head = lagmon_load_u64(field(\.stall_head))
        guard head >= cursor else { return ([], 0) }
        var lost: UInt64 = 0
        if head - cursor > capacity {
            lost = head - cursor - capacity
            cursor = head - capacity
        }
        let ring = lagmon_slot_stalls(base.assumingMemoryBound(to: lagmon_slot.self))!
        var records: [StallRecord] = []
        for sequence in cursor..<head {
            let record = UnsafeMutableRawPointer(ring + Int(sequence % capacity)).assumingMemoryBound(to: UInt64.self)
            records.append(
                StallRecord(
                    startNs: lagmon_load_u64(record), endNs: lagmon_load_u64(record + 1),
                    activity: LoopActivity(bits: UInt32(truncatingIfNeeded: lagmon_load_u64(record + 2)))))
        }
        // Records the observer lapped while we copied them are unreliable: drop and count them.
        let headAfter = lagmon_load_u64(field(\.stall_head))
        let firstIntact = headAfter > capacity ? headAfter - capacity : 0
        let overwritten = firstIntact > cursor ? min(firstIntact, head) - cursor : 0
        records.removeFirst(Int(overwritten))
        lost += overwritten
        cursor = head
        return (records, lost)
    }

    /// The blocking calls the loop's thread made (StrictMode), as the probe aggregated them: the
    /// records whose numbers can be true (at most the table's capacity, whatever the target
    /// claims), how many calls no record holds, and how many records were rejected.
    public func blockingCalls() -> (records: [BlockingCallRecord], unrecorded: UInt64, rejected: Int) {
        let capacity = lagmon_strict_capacity()
        let used = min(lagmon_load_u32(field(\.strict_used)), capacity)
        let table = lagmon_slot_strict(base.assumingMemoryBound(to: lagmon_slot.self))!
        var records: [BlockingCallRecord] = []
        var rejected = 0
        for index in 0..<Int(used) {
            let entry = UnsafeMutableRawPointer(table + index)
            func qword(_ path: KeyPath<lagmon_strict_entry, UInt64>) -> UInt64 {
                lagmon_load_u64(
                    (entry + MemoryLayout<lagmon_strict_entry>.offset(of: path)!).assumingMemoryBound(to: UInt64.self))
            }
            let call = lagmon_load_u32(
                (entry + MemoryLayout<lagmon_strict_entry>.offset(of: \.call)!).assumingMemoryBound(to: UInt32.self))
            guard
                let record = BlockingCallRecord(
                    callCode: call, siteAddress: qword(\.site), count: qword(\.count), totalNs: qword(\.total_ns),
                    maxNs: qword(\.max_ns))
            else {
                rejected += 1
                continue
            }
            records.append(record)
        }
        return (records, lagmon_load_u64(field(\.strict_overflow)), rejected)
    }

    // MARK: Watchdog parking

    /// Announces that the watchdog is about to sleep without a deadline; the observer will
    /// post the wake-up word on the loop's next wake-up.
    func park() { lagmon_store_u32(field(\.watchdog_parked), 1) }

    /// Withdraws the announcement. Returns false when the observer already took it, in which case
    /// its post is (or soon will be) on the wake-up word.
    func unpark() -> Bool { lagmon_exchange_u32(field(\.watchdog_parked), 0) != 0 }

    /// A waiter on the slot's wake-up word, starting from its current value (the watchdog owns it).
    func wakeup() -> ChannelWakeup { ChannelWakeup(word: field(\.wake_sequence)) }

    /// Wakes a watchdog sleeping on this slot.
    func post() { lagmon_channel_post(field(\.wake_sequence)) }

    private func field<T>(_ path: KeyPath<lagmon_slot, T>) -> UnsafeMutablePointer<T> { Self.field(base, path) }

    private static func field<T>(_ base: UnsafeMutableRawPointer, _ path: KeyPath<lagmon_slot, T>)
        -> UnsafeMutablePointer<T>
    {
        (base + MemoryLayout<lagmon_slot>.offset(of: path)!).assumingMemoryBound(to: T.self)
    }
}
