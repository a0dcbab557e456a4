import CLagmonShared
import Glibc
import LagmonCore
import LagmonLinux

/// Fuzzes the channel reader as a hostile target would: the input is a list of 8-byte writes
/// into one published slot and one published process entry of a fresh channel (through its
/// memfd, as a target writes it). lagmon's side then does what a session does with them: the
/// detector and long-iteration tracker look at the slot, a watchdog drains its stall ring, its
/// StrictMode table of blocking calls is read, the loop and process become a recording, the
/// recording is checked, built into a report and rendered. Nothing may trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func channelReaderFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, let channel = HostileWrites.channel else { return 0 }
    HostileWrites(UnsafeBufferPointer(start: data, count: size)).apply(to: channel)
    SessionReplay.run(channel)
    return 0
}

/// The fuzz input as writes: records of a 2-byte little-endian qword index and an 8-byte value.
/// Indexes below the slot's qword count land in slot 0 (its wake-up word too: a watchdog's wait
/// on it is bounded whatever it holds); the next 32 in process entry 0.
struct HostileWrites {
    static let slotOffset = MemoryLayout<lagmon_channel_header>.offset(of: \.slots)!
    static let processOffset = MemoryLayout<lagmon_channel_header>.offset(of: \.processes)!
    static let slotQwords = MemoryLayout<lagmon_slot>.size / 8
    static let processQwords = MemoryLayout<lagmon_process>.size / 8
    static let zeros = [UInt8](repeating: 0, count: MemoryLayout<lagmon_slot>.size)

    /// One channel for the whole run (making one costs more than a run): each input starts from
    /// its slot 0 and process entry 0 zeroed again, which is how a fresh channel has them.
    nonisolated(unsafe) static let channel = try? Channel(thresholdNs: 50_000_000, followChildren: true)

    var writes: [(offset: Int, value: UInt64)] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var position = 0
        while position + 10 <= bytes.count {
            let index = Int(bytes[position]) | Int(bytes[position + 1]) << 8
            var value: UInt64 = 0
            for byte in 0..<8 { value |= UInt64(bytes[position + 2 + byte]) << (8 * UInt64(byte)) }
            position += 10
            let qword = index % (Self.slotQwords + Self.processQwords)
            if qword < Self.slotQwords {
                writes.append((Self.slotOffset + qword * 8, value))
            } else {
                writes.append((Self.processOffset + (qword - Self.slotQwords) * 8, value))
            }
        }
    }

    /// Clears what the previous input wrote, writes everything, then publishes the slot and the
    /// process entry (state = active).
    func apply(to channel: Channel) {
        zero(Self.slotOffset, qwords: Self.slotQwords, channel)
        zero(Self.processOffset, qwords: Self.processQwords, channel)
        for (offset, value) in writes { put(value, at: offset, channel) }
        for offset in [Self.slotOffset, Self.processOffset] {
            var state = LAGMON_SLOT_ACTIVE.rawValue
            _ = pwrite(channel.fileDescriptor, &state, 4, off_t(offset))
        }
    }

    private func zero(_ offset: Int, qwords: Int, _ channel: Channel) {
        _ = Self.zeros.withUnsafeBytes { pwrite(channel.fileDescriptor, $0.baseAddress, qwords * 8, off_t(offset)) }
    }

    private func put(_ value: UInt64, at offset: Int, _ channel: Channel) {
        var value = value
        _ = pwrite(channel.fileDescriptor, &value, 8, off_t(offset))
    }
}

/// What a session does with the channel once the target wrote it.
enum SessionReplay {
    static let configuration = StallDetector.Configuration(
        thresholdNs: 50_000_000, stalledPollNs: 10_000_000, armLeadNs: 25_000_000)

    static func run(_ channel: Channel) {
        var loops: [LoopRecording] = []
        for slot in channel.activeSlots() {
            var detector = StallDetector(configuration: configuration)
            var tracker = LongIterationTracker(thresholdNs: configuration.thresholdNs, pollNs: 12_500_000)
            let nowNs = channel.nowNs()
            _ = detector.observe(slot.snapshot(), nowNs: nowNs)
            _ = tracker.observe(busySinceNs: slot.openBusySinceNs, snapshot: slot.snapshot(), nowNs: nowNs)
            _ = slot.counters()
            _ = slot.blockingCalls()
            let watchdog = Watchdog(slot: slot, configuration: configuration, latenessToleranceNs: 2_000_000)
            var loop = LoopRecording(slot: slot, result: watchdog.stop())
            loop.endNs = channel.processes().first { $0.index == slot.processIndex }.flatMap {
                $0.endedNs == 0 ? nil : $0.endedNs
            }
            loops.append(loop)
        }
        // A ten-second session: honest-looking times in the input fall inside it.
        let endNs = channel.nowNs() + 10_000_000_000
        let rejected = LoopRecording.keepPlausible(&loops, sessionEndNs: endNs)
        var recording = SessionRecording(
            command: ["fuzz"], pid: getpid(), startedAt: "2026-01-01T00:00:00Z", clockBaseNs: channel.clockBaseNs,
            spawnNs: 0, endNs: endNs, exit: .exited(0), thresholdNs: configuration.thresholdNs, loops: loops,
            probe: channel.probeStatus, lateness: LatenessTally(toleranceNs: 2_000_000))
        recording.processes = channel.processes().map { $0.recording(noticedEndNs: nil) }
        recording.channelRejectedValues = rejected
        recording.strict = true
        let report = ReportBuilder(toolVersion: "fuzz").build(recording)
        let writers: [any ReportWriter] = [
            JSONReportWriter(), TerminalSummaryWriter(style: TerminalStyle(colors: true)), HTMLReportWriter(),
            FoldedStacksWriter(), ChromeTraceWriter(), SpeedscopeWriter(), PprofWriter(),
        ]
        for writer in writers { _ = try? writer.render(report) }
    }
}
