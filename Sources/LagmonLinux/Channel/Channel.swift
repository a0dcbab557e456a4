import CLagmonLinux
import CLagmonShared
import Glibc
import LagmonCore
import Synchronization

/// The shared-memory channel lagmon hands to the target: creates it, initialises it, and reads
/// what the probes write. Owns the memfd and the mapping; both are released on deinit.
///
/// Shared fields are never touched through `pointee` (a debug build may copy a whole struct and
/// write it back, racing the target); they are reached by byte offset and read atomically.
public final class Channel: Sendable {
    /// The memfd the target inherits (close-on-exec in lagmon; made inheritable for the target only).
    public let fileDescriptor: Int32
    /// CLOCK_MONOTONIC when the channel was made: time zero of every channel timestamp.
    public let clockBaseNs: UInt64
    /// The shared memory, read and written only at offsets, atomically.
    private let mapping: ChannelMapping
    var base: UnsafeMutableRawPointer { mapping.base }
    var size: Int { mapping.size }
    // The discovery thread's last look at the discovery word (a Mutex: Channel is shared).
    private let discoveryWaiter: Mutex<ChannelWakeup>

    /// Creates a channel whose probes report stalls longer than `thresholdNs`. `everyThread`
    /// lets wait-call loops on any thread claim a slot (otherwise only main threads do);
    /// `followChildren` lets the target's descendants attach too; `strict` has the preload probe
    /// count blocking calls on loop threads (StrictMode).
    public init(thresholdNs: UInt64, everyThread: Bool = false, followChildren: Bool = false, strict: Bool = false)
        throws
    {
        let size = MemoryLayout<lagmon_channel_header>.size
        let fd = lagmon_memfd_create("lagmon-channel", lagmon_mfd_cloexec() | lagmon_mfd_allow_sealing())
        guard fd >= 0 else { throw SystemError("memfd_create") }
        // Sealed at its size: a target that truncates the memfd would fault lagmon's reads (SIGBUS).
        guard ftruncate(fd, off_t(size)) == 0, lagmon_seal_size(fd) == 0 else {
            let error = SystemError("sealing the channel")
            close(fd)
            throw error
        }
        guard let mapping = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapping != MAP_FAILED else {
            let error = SystemError("mmap")
            close(fd)
            throw error
        }
        fileDescriptor = fd
        self.mapping = ChannelMapping(base: mapping, size: size)
        discoveryWaiter = Mutex(
            ChannelWakeup(
                word: (mapping + MemoryLayout<lagmon_channel_header>.offset(of: \.discovery_sequence)!)
                    .assumingMemoryBound(to: UInt32.self)))
        clockBaseNs = MonotonicClock.nowNs()
        initialise(thresholdNs: thresholdNs)
        var options: UInt32 = 0
        if everyThread { options |= LAGMON_OPTION_ALL_THREADS.rawValue }
        if followChildren { options |= LAGMON_OPTION_FOLLOW_CHILDREN.rawValue }
        if strict { options |= LAGMON_OPTION_STRICT.rawValue }
        field(\.options).pointee = options
    }

    deinit {
        // The mapping outlives the descriptor (unmapped when its last holder lets go).
        close(fileDescriptor)
    }

    /// Now, on the channel clock.
    public func nowNs() -> UInt64 { MonotonicClock.nowNs() - clockBaseNs }

    /// Converts a channel timestamp to an absolute CLOCK_MONOTONIC one (saturating: deadlines can
    /// derive from what the target wrote).
    func monotonicNs(_ channelNs: UInt64) -> UInt64 {
        let (sum, overflow) = channelNs.addingReportingOverflow(clockBaseNs)
        return overflow ? .max : sum
    }

    /// Every slot a probe has claimed and published. A slot's state is read before anything else
    /// of it: a free one costs one load (the table holds LAGMON_SLOT_CAPACITY slots, most unused).
    /// Every slot is looked at, not only up to the first free one as the probes do: a target may
    /// claim out of order.
    public func activeSlots() -> [ChannelSlot] {
        (0..<Int(LAGMON_SLOT_CAPACITY)).compactMap { index in
            let state = (slotPointer(index) + MemoryLayout<lagmon_slot>.offset(of: \.state)!)
                .assumingMemoryBound(to: UInt32.self)
            guard lagmon_load_u32(state) == LAGMON_SLOT_ACTIVE.rawValue else { return nil }
            let slot = ChannelSlot(channel: self, index: index)
            return slot.isActive ? slot : nil
        }
    }

    /// Sleeps until a probe claims a slot, `postDiscovery()` is called, or `deadlineNs` (channel
    /// clock). One thread at a time waits.
    public func waitForDiscovery(untilNs deadlineNs: UInt64) {
        discoveryWaiter.withLock { _ = $0.wait(untilMonotonicNs: monotonicNs(deadlineNs)) }
    }

    /// Wakes `waitForDiscovery`.
    public func postDiscovery() { lagmon_channel_post(field(\.discovery_sequence)) }

    /// What the probes reported about themselves.
    public var probeStatus: ProbeStatus {
        let flags = lagmon_load_u32(field(\.probe_flags))
        func has(_ flag: lagmon_probe_flag) -> Bool { flags & flag.rawValue != 0 }
        return ProbeStatus(
            preloadLoaded: has(LAGMON_PROBE_PRELOAD_LOADED), agentCalled: has(LAGMON_PROBE_AGENT_CALLED),
            foundCoreFoundation: has(LAGMON_PROBE_CF_FOUND), lacksCoreFoundation: has(LAGMON_PROBE_NO_CF),
            observerInstalled: has(LAGMON_PROBE_OBSERVER_INSTALLED),
            slotsExhausted: has(LAGMON_PROBE_SLOTS_EXHAUSTED), installFailed: has(LAGMON_PROBE_INSTALL_FAILED),
            versionMismatches: lagmon_load_u32(field(\.mismatch_count)),
            processesExhausted: has(LAGMON_PROBE_PROCESSES_EXHAUSTED),
            refusedLoops: Int(lagmon_load_u32(field(\.refused_loops))), slotCapacity: Int(LAGMON_SLOT_CAPACITY))
    }

    /// Threads that qualified as wait-call loops but got no slot because only main threads are
    /// watched.
    public var unwatchedLoops: Int { Int(lagmon_load_u32(field(\.unwatched_loops))) }

    /// Descendants of the target whose probe stayed inert (children are not followed).
    public var unfollowedProcesses: Int { Int(lagmon_load_u32(field(\.unfollowed_processes))) }

    /// Every process entry a probe has published, in table order.
    public func processes() -> [ChannelProcess] {
        (0..<Int(LAGMON_PROCESS_CAPACITY)).compactMap { index in
            ChannelProcess(
                entry: base + MemoryLayout<lagmon_channel_header>.offset(of: \.processes)!
                    + index * MemoryLayout<lagmon_process>.stride, index: index)
        }
    }

    func slotPointer(_ index: Int) -> UnsafeMutableRawPointer {
        base + MemoryLayout<lagmon_channel_header>.offset(of: \.slots)! + index * MemoryLayout<lagmon_slot>.stride
    }

    /// Stores the Swift pool's tick: the channel clock `nowNs`, which pool jobs read as their time.
    func storeSwiftTick(_ nowNs: UInt64) { lagmon_store_release_u64(tickField(\.now_ns), nowNs) }

    /// The Swift pool's tick line, as the probes read it.
    var swiftTick: UnsafeMutablePointer<lagmon_swift_tick> {
        let offset = MemoryLayout<lagmon_channel_header>.offset(of: \.swift_tick)!
        return (base + offset).assumingMemoryBound(to: lagmon_swift_tick.self)
    }

    private func tickField<T>(_ path: KeyPath<lagmon_swift_tick, T>) -> UnsafeMutablePointer<T> {
        (UnsafeMutableRawPointer(swiftTick) + MemoryLayout<lagmon_swift_tick>.offset(of: path)!).assumingMemoryBound(
            to: T.self)
    }

    private func field<T>(_ path: KeyPath<lagmon_channel_header, T>) -> UnsafeMutablePointer<T> {
        (base + MemoryLayout<lagmon_channel_header>.offset(of: path)!).assumingMemoryBound(to: T.self)
    }

    private func initialise(thresholdNs: UInt64) {
        // The fresh memfd is zero-filled: only non-zero fields need setting.
        field(\.magic).pointee = LAGMON_CHANNEL_MAGIC
        field(\.version).pointee = LAGMON_CHANNEL_VERSION
        field(\.header_size).pointee = UInt32(MemoryLayout<lagmon_channel_header>.offset(of: \.slots)!)
        field(\.slot_size).pointee = UInt32(MemoryLayout<lagmon_slot>.size)
        field(\.slot_capacity).pointee = LAGMON_SLOT_CAPACITY
        field(\.total_size).pointee = UInt64(size)
        field(\.clock_base_ns).pointee = clockBaseNs
        field(\.stall_threshold_ns).pointee = thresholdNs
        field(\.process_capacity).pointee = LAGMON_PROCESS_CAPACITY
        tickField(\.period_ns).pointee = SwiftTick.periodNs(thresholdNs: thresholdNs)
        tickField(\.slack_ns).pointee = SwiftTick.slackNs(thresholdNs: thresholdNs)
    }
}
