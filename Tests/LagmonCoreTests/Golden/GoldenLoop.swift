import LagmonCore

/// Builds a loop's recording the way the observer and the watchdog fill it in: from the busy
/// periods the loop went through (channel clock), so counts, totals, the histogram, stall records
/// and long iterations agree with each other as they do in a real session.
struct GoldenLoop {
    /// One busy period: the loop awake from `startNs` for `durationNs`, in `activity`.
    struct Busy {
        var startNs: UInt64
        var durationNs: UInt64
        var activity: LoopActivity = .afterWaiting
        /// Stack samples taken while it lasted (stalls only).
        var samples: [ResolvedSample] = []
        /// Whether the watchdog saw it while it lasted (1.5 ms after the threshold).
        var seenLive = true
    }

    var thread: ThreadRef
    var pid: Int32
    var observer = "cfrunloop"
    var claimedNs: UInt64
    var thresholdNs: UInt64
    var busy: [Busy]
    /// Short iterations besides `busy`, all `shortNs` long.
    var shortIterations: UInt64 = 0
    var shortNs: UInt64 = 0
    /// A busy period still open at the end: its start and activity.
    var open: (sinceNs: UInt64, activity: LoopActivity)?
    var stallRecordsLost: UInt64 = 0
    var endNs: UInt64?

    func recording() -> LoopRecording {
        var buckets: [Int: UInt64] = [:]
        if shortIterations > 0 { buckets[LatencyBuckets.index(of: shortNs)] = shortIterations }
        for period in busy { buckets[LatencyBuckets.index(of: period.durationNs), default: 0] += 1 }
        let count = shortIterations + UInt64(busy.count)
        let passes = count + (open == nil ? 0 : 1)
        let lastSnapshot =
            open.map { LoopSnapshot(activity: $0.activity, sinceNs: $0.sinceNs) }
            ?? LoopSnapshot(
                activity: .beforeWaiting, sinceNs: busy.map { $0.startNs + $0.durationNs }.max() ?? claimedNs)
        let stalls = busy.filter { $0.durationNs > thresholdNs && $0.activity.isStalling }
        var recording = LoopRecording(
            thread: thread, pid: pid, observer: observer, claimedNs: claimedNs, passes: passes,
            transitions: passes * 4, busyCount: count,
            busyTotalNs: shortIterations * shortNs + busy.reduce(0) { $0 + $1.durationNs },
            busyMaxNs: max(shortNs, busy.map(\.durationNs).max() ?? 0), busyBuckets: buckets,
            openBusySinceNs: open?.sinceNs, lastSnapshot: lastSnapshot,
            stallRecords: stalls.map {
                StallRecord(startNs: $0.startNs, endNs: $0.startNs + $0.durationNs, activity: $0.activity)
            },
            stallRecordsLost: stallRecordsLost,
            liveStallNoticedNs: Dictionary(
                uniqueKeysWithValues: stalls.filter(\.seenLive).map {
                    ($0.startNs, $0.startNs + thresholdNs + 1_500_000)
                }
            ))
        recording.stallSamples = Dictionary(
            uniqueKeysWithValues: stalls.filter { !$0.samples.isEmpty }.map { ($0.startNs, $0.samples) })
        recording.longIterations = busy.filter { $0.durationNs > thresholdNs }.map {
            LongIterationRecord(startNs: $0.startNs, endNs: $0.startNs + $0.durationNs, endSeen: true)
        }
        recording.endNs = endNs
        return recording
    }
}

/// Stack samples as the sampler and symbolizer produce them: one every `intervalNs` from
/// `startNs`, frames innermost first, each with the thread's state just before its pause.
struct GoldenSamples {
    var tid: Int32
    var intervalNs: UInt64 = 10_000_000
    var pauseNs: UInt64 = 38_000
    var unwindNs: UInt64 = 61_000

    /// `count` samples of `frames` from `startNs`; `state(i)` is the i-th sample's thread state.
    func take(
        _ count: Int, from startNs: UInt64, frames: [Frame], outcome: UnwindOutcome = .complete,
        state: (Int) -> ThreadStateSample?
    ) -> [ResolvedSample] {
        (0..<count).map { index in
            let at = startNs + UInt64(index) * intervalNs
            return ResolvedSample(
                sample: StackSample(
                    timestampNs: at, tid: tid, addresses: frames.map(\.address), outcome: outcome,
                    pauseNs: pauseNs + UInt64(index % 5) * 3_000, unwindNs: unwindNs + UInt64(index % 3) * 7_000,
                    state: state(index)),
                frames: frames)
        }
    }

    /// A thread on a CPU whose run-queue delay grew by `delayNs` per 10 ms sample interval and
    /// which ran for the rest of it, less 1 ms (as a real one's counters can: it is never both).
    static func running(delayNs: UInt64 = 200_000) -> (Int) -> ThreadStateSample? {
        { index in
            ThreadStateSample(
                state: .running, syscall: nil, wchan: nil, runDelayNs: UInt64(index) * delayNs,
                onCPUNs: UInt64(index) * (9_000_000 - min(delayNs, 9_000_000)))
        }
    }

    /// A thread asleep in system call `name` with `fd` as its first argument.
    static func blocked(
        _ name: String, fd: UInt64 = 0, target: String? = nil, scheduler: SchedulerState = .sleeping,
        wchan: String? = nil
    ) -> (Int) -> ThreadStateSample? {
        let number = SyscallTable.names.first { $0.value == name }?.key ?? -1
        return { _ in
            ThreadStateSample(
                state: scheduler,
                syscall: SyscallInfo(
                    number: number, name: name, arguments: [fd, 4096, 0, 0, 0, 0], descriptorTarget: target),
                wchan: wchan, runDelayNs: 0, onCPUNs: 0)
        }
    }
}

/// Frames of an imaginary build, loaded at fixed bases (innermost first in stacks).
enum GoldenFrames {
    static func frame(
        _ symbol: String?, _ module: String, base: UInt64, offset: UInt64, file: String? = nil, line: Int? = nil
    ) -> Frame {
        Frame(symbol: symbol, module: module, offset: offset, address: base + offset, file: file, line: line)
    }

    static let app: UInt64 = 0x5603_4a20_0000
    static let foundation: UInt64 = 0x7f3c_8e40_0000
    static let libc: UInt64 = 0x7f3c_8d80_0000
    static let python: UInt64 = 0x7f11_2200_0000

    static func demo(_ symbol: String, _ offset: UInt64, line: Int? = nil) -> Frame {
        frame(
            symbol, "lagmon-demo", base: app, offset: offset,
            file: line.map { _ in "/src/lagmon-demo/ImageList.swift" },
            line: line)
    }
    static func cf(_ symbol: String, _ offset: UInt64) -> Frame {
        frame(symbol, "libFoundation.so", base: foundation, offset: offset)
    }
    static func c(_ symbol: String, _ offset: UInt64) -> Frame {
        frame(symbol, "libc.so.6", base: libc, offset: offset)
    }

    /// The main run loop down to `main`, innermost first.
    static let runLoop = [
        cf("__CFRunLoopDoObservers", 0x21_9a40), cf("__CFRunLoopRun", 0x21_7f10), cf("CFRunLoopRunSpecific", 0x21_6b20),
        cf("CFRunLoopRun", 0x21_6a00), demo("main", 0x1_2340), c("__libc_start_call_main", 0x2_9d90),
        c("__libc_start_main_impl", 0x2_9e40), demo("_start", 0x1_0a20),
    ]
}
