import LagmonCore

/// The saved recordings of the golden test: sessions as lagmon's session code hands them to the
/// report builder (channel-clock nanoseconds), each covering a different part of the outputs.
enum GoldenRecordings {
    static let ms: UInt64 = 1_000_000
    static let second: UInt64 = 1_000_000_000

    /// `lagmon run --budget … -- lagmon-demo naive`: one CFRunLoop on the main thread, stalls that
    /// are CPU-bound, blocked in `read`, waiting for a CPU and on a lock, one still open at exit,
    /// a lost sample and unwind errors, per-thread CPU with an alert, and lagmon's own cost.
    static var imageList: SessionRecording {
        let spawnNs = 2 * second
        let tid: Int32 = 5001
        let samples = GoldenSamples(tid: tid)
        let decode = [
            GoldenFrames.demo("ImageDecoder.inflate(_:into:)", 0x4_51c0, line: 88),
            GoldenFrames.demo("ImageDecoder.decodeImage(_:)", 0x4_4e80, line: 41),
            GoldenFrames.demo("ImageListController.loadThumbnail(_:)", 0x3_9a10, line: 57),
        ]
        let read = [
            GoldenFrames.c("read", 0x11_4980),
            GoldenFrames.demo("ImageStore.bytes(of:)", 0x3_2c40, line: 30),
            GoldenFrames.demo("ImageListController.loadThumbnail(_:)", 0x3_9a10, line: 55),
        ]
        let lock = [
            GoldenFrames.c("__futex_abstimed_wait_common", 0x9_1170),
            GoldenFrames.c("pthread_mutex_lock", 0x9_8ef0),
            GoldenFrames.demo("ThumbnailCache.value(for:)", 0x3_7710, line: 19),
            GoldenFrames.demo("ImageListController.loadThumbnail(_:)", 0x3_9a10, line: 52),
        ]
        let decodeStack: [Frame] = decode + GoldenFrames.runLoop
        let readStack: [Frame] = read + GoldenFrames.runLoop
        let lockStack: [Frame] = lock + GoldenFrames.runLoop
        let futex = GoldenSamples.blocked("futex", fd: 0x5603_4a9f_0010, wchan: "futex_wait_queue")
        let whole: [ResolvedSample] = samples.take(
            17, from: spawnNs + 2_355 * ms, frames: lockStack, state: futex)
        let broken: [ResolvedSample] = samples.take(
            2, from: spawnNs + 2_525 * ms, frames: Array(lock.prefix(3)), outcome: .failed, state: futex)
        let lockSamples = whole + broken
        let stalls: [GoldenLoop.Busy] = [
            .init(
                startNs: spawnNs + 400 * ms, durationNs: 210 * ms,
                samples: samples.take(
                    14, from: spawnNs + 455 * ms, frames: decodeStack, state: GoldenSamples.running())),
            .init(
                startNs: spawnNs + 900 * ms, durationNs: 150 * ms, activity: .beforeSources,
                samples: samples.take(
                    9, from: spawnNs + 955 * ms, frames: readStack,
                    state: GoldenSamples.blocked("read", fd: 7, target: "/var/tmp/images/3.png"))),
            .init(
                startNs: spawnNs + 1_500 * ms, durationNs: 180 * ms,
                samples: samples.take(
                    12, from: spawnNs + 1_555 * ms, frames: decodeStack,
                    state: GoldenSamples.running(delayNs: 7 * ms))),
            .init(startNs: spawnNs + 2_300 * ms, durationNs: 260 * ms, samples: lockSamples),
            .init(startNs: spawnNs + 2_800 * ms, durationNs: 120 * ms, activity: .beforeWaiting),
        ]
        let loop = GoldenLoop(
            thread: ThreadRef(tid: tid, name: "lagmon-demo"), pid: tid, claimedNs: spawnNs + 31 * ms,
            thresholdNs: 100 * ms, busy: stalls, shortIterations: 412, shortNs: 1_800_000,
            open: (sinceNs: spawnNs + 3_000 * ms, activity: .afterWaiting))
        var lateness = LatenessTally(toleranceNs: 1 * ms)
        for index in 0..<60 {
            let deadline = spawnNs + UInt64(index) * 50 * ms
            let lateNs: UInt64 = UInt64(index % 7) * 90_000 + (index == 33 ? 2 * ms : 0)
            lateness.record(deadlineNs: deadline, wokeNs: deadline + lateNs)
        }
        lateness.observerPosts = 6
        var recording = SessionRecording(
            command: ["/opt/lagmon/bin/lagmon-demo", "naive", "--images", "24"], pid: tid,
            startedAt: "2026-03-14T09:26:53.589Z", clockBaseNs: 81_234_567_000_000, spawnNs: spawnNs,
            endNs: spawnNs + 3_200 * ms, exit: .exited(0), thresholdNs: 100 * ms, loops: [loop.recording()],
            probe: ProbeStatus(preloadLoaded: true, foundCoreFoundation: true, observerInstalled: true),
            lateness: lateness)
        recording.threads = cpuThreads(spawnNs: spawnNs, mainTid: tid, decode: decodeStack)
        recording.samplesLost = 1
        recording.overhead = LagmonCost(
            cpuNs: 96_400_000, peakRssBytes: 18_612_224, cpuSamplerPasses: 13, cpuSamplerNsPerPass: 41_250)
        recording.processes = [
            ProcessRecording(
                index: 0, pid: tid, ppid: 4999, command: ["/opt/lagmon/bin/lagmon-demo", "naive", "--images", "24"],
                attachedNs: spawnNs + 12 * ms)
        ]
        return recording
    }

    /// Per-thread CPU as the tracker turns /proc readings into series and alerts: the main
    /// thread busy during the stalls, a decoding worker, an idle timer thread.
    private static func cpuThreads(spawnNs: UInt64, mainTid: Int32, decode: [Frame]) -> [ThreadReport] {
        var tracker = ThreadCPUTracker(
            configuration: .init(ticksPerSecond: 100, targetStartNs: spawnNs, alertPct: 70))
        let mainTicks: [UInt64] = [0, 3, 18, 22, 30, 31, 48, 70, 91, 93, 96, 104, 105, 106]
        let workerTicks: [UInt64] = [0, 1, 2, 4, 9, 14, 15, 15, 16, 20, 21, 21, 22, 22]
        var alerts: [Int32: [CPUAlert]] = [:]
        for (index, main) in mainTicks.enumerated() {
            let atNs = spawnNs + UInt64(index) * 250 * ms
            var readings = [
                ThreadCPUReading(
                    tid: mainTid, name: "lagmon-demo", state: index % 3 == 0 ? .sleeping : .running, cpuTicks: main),
                ThreadCPUReading(
                    tid: mainTid + 1, name: "decode-worker", state: .sleeping, cpuTicks: workerTicks[index]),
            ]
            if index < 9 {
                readings.append(ThreadCPUReading(tid: mainTid + 2, name: "timer", state: .sleeping, cpuTicks: 1))
            }
            for event in tracker.record(readings, atNs: atNs) {
                var alert = event.alert
                alert.frames = decode.reversed()
                alerts[event.tid, default: []].append(alert)
            }
        }
        return tracker.reports(alertStacks: alerts)
    }

    /// `lagmon run --loops all --follow-children --threshold 50ms -- ./start-workers.sh`, killed
    /// by SIGTERM: a shell that forks and execs a Python asyncio worker and a Node.js worker (which
    /// ends early), wait-call loops in both, sleeping, uninterruptible-I/O and socket stalls,
    /// frames without symbols, lost stall records and a late watchdog. CPU readings were off.
    static var workers: SessionRecording {
        let spawnNs = 5 * second
        let endNs = spawnNs + 4_000 * ms
        let threshold = 50 * ms
        let python = 6010 as Int32
        let node = 6020 as Int32
        let py = GoldenFrames.python
        let pyFrames: (String) -> [Frame] = { leaf in
            [
                GoldenFrames.c(leaf, 0xe_a3b0),
                GoldenFrames.frame(nil, "libpython3.12.so.1.0", base: py, offset: 0x1f_4c20),
                GoldenFrames.frame("_PyEval_EvalFrameDefault", "libpython3.12.so.1.0", base: py, offset: 0x9_8e10),
                GoldenFrames.frame("PyEval_EvalCode", "libpython3.12.so.1.0", base: py, offset: 0x17_0a50),
                GoldenFrames.frame("Py_RunMain", "libpython3.12.so.1.0", base: py, offset: 0x1c_2d90),
                GoldenFrames.c("__libc_start_call_main", 0x2_9d90),
            ]
        }
        let nodeFrames: [Frame] = [
            GoldenFrames.c("write", 0x11_4a20),
            GoldenFrames.frame("uv__write", "node", base: 0x55d0_1000_0000, offset: 0x1d_7a40),
            GoldenFrames.frame(nil, "?", base: 0, offset: 0x3f1c_8a40_9e20),
            GoldenFrames.frame("uv_run", "node", base: 0x55d0_1000_0000, offset: 0x1c_9e10),
            GoldenFrames.frame(
                "node::SpinEventLoop(node::Environment*)", "node", base: 0x55d0_1000_0000, offset: 0x8_12f0),
        ]
        let pySamples = GoldenSamples(tid: python, intervalNs: 10 * ms)
        let sleeping: GoldenLoop.Busy = .init(
            startNs: spawnNs + 600 * ms, durationNs: 320 * ms,
            samples: pySamples.take(
                29, from: spawnNs + 625 * ms, frames: pyFrames("clock_nanosleep"),
                state: GoldenSamples.blocked("clock_nanosleep", wchan: "hrtimer_nanosleep")))
        let fsyncState = GoldenSamples.blocked(
            "fsync", fd: 9, target: "/srv/data/journal.db", scheduler: .diskSleep, wchan: "jbd2_log_wait_commit")
        let syncing: GoldenLoop.Busy = .init(
            startNs: spawnNs + 1_400 * ms, durationNs: 75 * ms,
            samples: pySamples.take(3, from: spawnNs + 1_425 * ms, frames: pyFrames("fsync"), state: fsyncState),
            seenLive: false)
        let unsampled: GoldenLoop.Busy = .init(startNs: spawnNs + 2_100 * ms, durationNs: 64 * ms, seenLive: false)
        let pythonLoop = GoldenLoop(
            thread: ThreadRef(tid: python, name: "python3"), pid: python, observer: "waitcall",
            claimedNs: spawnNs + 140 * ms, thresholdNs: threshold, busy: [sleeping, syncing, unsampled],
            shortIterations: 2_904, shortNs: 310_000, stallRecordsLost: 3)
        let writeState = GoldenSamples.blocked("write", fd: 21, target: "socket:[88231]")
        let writing: GoldenLoop.Busy = .init(
            startNs: spawnNs + 1_000 * ms, durationNs: 90 * ms,
            samples: GoldenSamples(tid: node).take(
                6, from: spawnNs + 1_025 * ms, frames: nodeFrames, outcome: .truncated, state: writeState))
        let nodeLoop = GoldenLoop(
            thread: ThreadRef(tid: node, name: "node"), pid: node, observer: "waitcall", claimedNs: spawnNs + 260 * ms,
            thresholdNs: threshold, busy: [writing], shortIterations: 611, shortNs: 95_000,
            endNs: spawnNs + 2_500 * ms)
        let helper = GoldenLoop(
            thread: ThreadRef(tid: python + 3, name: "asyncio_0"), pid: python, observer: "waitcall",
            claimedNs: spawnNs + 900 * ms, thresholdNs: threshold, busy: [], shortIterations: 40, shortNs: 2_000_000,
            open: (sinceNs: endNs - 70 * ms, activity: .afterWaiting))
        var lateness = LatenessTally(toleranceNs: 1 * ms)
        lateness.record(deadlineNs: spawnNs + 1_440 * ms, wokeNs: spawnNs + 1_481 * ms)
        for index in 0..<20 { lateness.record(deadlineNs: UInt64(index) * ms, wokeNs: UInt64(index) * ms + 40_000) }
        var recording = SessionRecording(
            command: ["./start-workers.sh", "--port", "8080"], pid: 6000, startedAt: "2026-03-14T10:00:00.000Z",
            clockBaseNs: 90_000_000_000_000, spawnNs: spawnNs, endNs: endNs, exit: .signaled(15),
            thresholdNs: threshold, loops: [pythonLoop.recording(), helper.recording(), nodeLoop.recording()],
            probe: ProbeStatus(preloadLoaded: true, lacksCoreFoundation: true), lateness: lateness)
        recording.loopSelection = "all"
        recording.processes = [
            ProcessRecording(
                index: 0, pid: 6000, ppid: 5990, command: ["/bin/sh", "./start-workers.sh", "--port", "8080"],
                attachedNs: spawnNs + 3 * ms),
            ProcessRecording(
                index: 1, pid: python, ppid: 6000, command: ["/bin/sh", "./start-workers.sh", "--port", "8080"],
                forked: true, execed: true, attachedNs: spawnNs + 40 * ms, endNs: spawnNs + 52 * ms),
            ProcessRecording(
                index: 2, pid: python, ppid: 6000,
                command: ["/usr/bin/python3", "-m", "worker", "--queue", String(repeating: "q", count: 180)],
                commandTruncated: true, attachedNs: spawnNs + 52 * ms),
            ProcessRecording(
                index: 3, pid: node, ppid: 6000, command: ["node", "worker.js"], attachedNs: spawnNs + 61 * ms,
                endNs: spawnNs + 2_500 * ms),
        ]
        recording.sampleIntervalNs = 10 * ms
        recording.cpuIntervalNs = 0
        return recording
    }

    /// `lagmon attach 7100 --duration 3s`: a running server watched from /proc every
    /// millisecond by the /proc probe, stalls in its own request parser and in a `read`,
    /// the probe's own cost; the process kept running.
    static var attached: SessionRecording {
        let startNs = 1 * second
        let endNs = startNs + 3 * second
        let threshold = 100 * ms
        var probe = ProcLoopProbe(thresholdNs: threshold)
        // Busy spans (start ms, length ms) and short iterations in between, read every millisecond.
        var spans: [(UInt64, UInt64)] = [(700, 240), (1_800, 130)]
        for index in 0..<UInt64(30) { spans.append((100 + index * 50, 2)) }
        var schedstat = ProcSchedstat(onCPUNs: 0, runDelayNs: 0, timeslices: 0)
        for tick in 0..<UInt64(3_000) {
            let busy = spans.contains { tick >= $0.0 && tick < $0.0 + $0.1 }
            if busy { schedstat.onCPUNs += 950_000 }
            let began = startNs + tick * ms + 20_000
            probe.record(
                ProcLoopReading(
                    state: busy ? .busy : .waiting, beganNs: began, endedNs: began + 14_000, schedstat: schedstat))
        }
        probe.finish(atNs: endNs)
        var loop = probe.recording(
            thread: ThreadRef(tid: 7100, name: "http-server"), pid: 7100, liveStallNoticedNs: [:])
        let server: UInt64 = 0x5581_3300_0000
        let parse = [
            GoldenFrames.frame(
                "parse_header", "http-server", base: server, offset: 0x3_1a0, file: "src/parse.c", line: 212),
            GoldenFrames.frame(
                "parse_request", "http-server", base: server, offset: 0x2_f10, file: "src/parse.c", line: 90),
            GoldenFrames.frame(
                "handle_client", "http-server", base: server, offset: 0x2_4c0, file: "src/server.c", line: 51),
            GoldenFrames.frame("main", "http-server", base: server, offset: 0x1_b20, file: "src/server.c", line: 133),
        ]
        let read = [GoldenFrames.c("read", 0x11_4980)] + parse.dropFirst(2)
        let samples = GoldenSamples(tid: 7100, pauseNs: 52_000, unwindNs: 88_000)
        for (index, record) in loop.stallRecords.enumerated() {
            let from = record.startNs + threshold / 2
            loop.stallSamples[record.startNs] =
                index == 0
                ? samples.take(19, from: from, frames: parse, state: GoldenSamples.running())
                : samples.take(
                    8, from: from, frames: read, state: GoldenSamples.blocked("read", fd: 5, target: "socket:[40411]"))
            loop.liveStallNoticedNs[record.startNs] = record.startNs + threshold + 1_100_000
        }
        var lateness = LatenessTally(toleranceNs: 500_000)
        for index in 0..<3_000 {
            let deadline = startNs + UInt64(index) * ms
            let lateNs: UInt64 = index % 100 == 0 ? 700_000 : 60_000
            lateness.record(deadlineNs: deadline, wokeNs: deadline + lateNs)
        }
        var recording = SessionRecording(
            command: ["/usr/local/bin/http-server", "--port", "8080"], pid: 7100,
            startedAt: "2026-03-14T11:30:15.250Z", clockBaseNs: 120_000_000_000_000, spawnNs: startNs, endNs: endNs,
            exit: nil, thresholdNs: threshold, loops: [loop], probe: ProbeStatus(), lateness: lateness)
        recording.attached = AttachedTarget(exited: false)
        recording.procProbe = ProcProbeSettings(intervalNs: 1 * ms, reason: "lagmon attached to a running process")
        var cost = LagmonCost(
            cpuNs: 142_000_000, peakRssBytes: 12_845_056, cpuSamplerPasses: 12, cpuSamplerNsPerPass: 38_000)
        cost.probeReadings = 3_000
        cost.probeCPUNs = 99_000_000
        recording.overhead = cost
        return recording
    }

    /// `lagmon run -- ./static-server` where nothing could be watched: no observer, a failed exit,
    /// child processes not followed, and stacks unavailable.
    static var unobserved: SessionRecording {
        var recording = SessionRecording(
            command: ["./static-server", "--once"], pid: 8800, startedAt: "2026-03-14T12:00:00.000Z",
            clockBaseNs: 7_000_000_000, spawnNs: 1 * ms, endNs: 1 * ms + 850 * ms, exit: .exited(3),
            thresholdNs: 250 * ms, loops: [], probe: ProbeStatus(preloadLoaded: true, lacksCoreFoundation: true),
            lateness: LatenessTally(toleranceNs: 1 * ms))
        recording.unfollowedProcesses = 2
        recording.samplingUnavailable =
            "stacks unavailable: ptrace refused (kernel.yama.ptrace_scope is 3); run as root or with CAP_SYS_PTRACE"
        recording.threads = [
            ThreadReport(
                tid: 8800, name: "static-server", state: "Z",
                cpu: ThreadCPU(avgPct: 12.5, maxPct: 40, totalNs: 100 * ms),
                alerts: [], cpuSeries: [CPUPoint(atNs: 250 * ms, pct: 40), CPUPoint(atNs: 500 * ms, pct: 0)])
        ]
        return recording
    }
}
