import Glibc
import LagmonCore
import LagmonSymbols

/// `lagmon dump`: one look at a running process. Watches its threads' /proc state for `lookNs`
/// (the /proc probe's reader of `lagmon attach`, every millisecond) to tell an idle loop from a
/// busy one and to measure CPU, then takes one stack of each shown thread with attach's stack
/// sampler (each thread stopped once, briefly, then detached) and symbolizes it. The process is
/// never left stopped or traced: the sampler detaches every thread before `take` returns.
public struct ProcessDumper: Sendable {
    /// Threads watched and sampled, at most.
    public static let maxThreads = 256
    /// Time between two /proc readings during the look.
    static let readingIntervalNs: UInt64 = 1_000_000

    /// The process.
    public var target: AttachTarget
    /// How long to watch.
    public var lookNs: UInt64
    /// Every thread, or only the loop threads (the main thread, threads seen in an event-loop
    /// wait call during the look, and threads busy in their own code at the end of it).
    public var allThreads: Bool

    public init(target: AttachTarget, lookNs: UInt64, allThreads: Bool) {
        self.target = target
        self.lookNs = lookNs
        self.allThreads = allThreads
    }

    /// Looks, samples, detaches. Throws what attach throws when the process cannot be read.
    public func take() throws(AttachFailure) -> ProcessDump {
        let startedUnixNs = Self.unixNowNs()
        let tids = ProcFS.taskIDs(pid: target.pid, limit: 65_536)
        let watched = [target.pid] + tids.filter { $0 != target.pid }.prefix(Self.maxThreads - 1)
        let mainFiles = try AttachSession.openFiles(target)
        var files = [target.pid: mainFiles]
        for tid in watched where tid != target.pid {
            files[tid] = try? ProcLoopFiles(pid: target.pid, tid: tid)
        }
        let cpuBefore = cpuNs(watched)
        let lookStart = MonotonicClock.nowNs()
        let counts = look(files)
        let lookedNs = max(MonotonicClock.nowNs() - lookStart, 1)
        let cpuAfter = cpuNs(watched)
        let shown = watched.filter { tid in
            allThreads || tid == target.pid || (counts[tid]?.waiting ?? 0) > 0
                || ThreadDump.activity(of: ProcFS.threadState(pid: target.pid, tid: tid)) == .busy
        }
        let (samples, unavailable, problems) = stacks(shown)
        let threads = shown.map { tid in
            thread(
                tid, sample: samples[tid], readings: counts[tid] ?? (0, 0),
                cpuNs: cpuAfter[tid].map { after in after - min(cpuBefore[tid] ?? after, after) } ?? 0,
                lookedNs: lookedNs, totalNs: cpuAfter[tid] ?? 0)
        }
        var dump = ProcessDump(
            pid: target.pid, name: target.name, command: target.command, host: RunInfo.current().host,
            takenAtUnixNs: startedUnixNs, lookNs: lookedNs, threads: threads, threadCount: tids.count,
            stacksUnavailable: unavailable)
        dump.unreadableFiles = problems.isEmpty ? nil : problems
        dump.watchedThreadLimit = tids.count > Self.maxThreads ? Self.maxThreads : nil
        dump.allThreads = allThreads
        return dump
    }

    /// Reads every thread's `syscall` file each millisecond for `lookNs`: per thread, readings
    /// outside a loop wait (busy) and in one (waiting).
    private func look(_ files: [Int32: ProcLoopFiles]) -> [Int32: (busy: Int, waiting: Int)] {
        var counts: [Int32: (busy: Int, waiting: Int)] = [:]
        let end = MonotonicClock.nowNs() + lookNs
        repeat {
            for (tid, file) in files {
                guard let reading = try? file.read(clock: MonotonicClock.nowNs) else { continue }
                switch reading.state {
                case .waiting: counts[tid, default: (0, 0)].waiting += 1
                case .busy: counts[tid, default: (0, 0)].busy += 1
                default: break
                }
            }
            var pause = timespec(tv_sec: 0, tv_nsec: Int(Self.readingIntervalNs))
            _ = nanosleep(&pause, nil)
        } while MonotonicClock.nowNs() < end
        return counts
    }

    /// Each thread's CPU time so far: schedstat's nanoseconds, else stat's clock ticks.
    private func cpuNs(_ tids: [Int32]) -> [Int32: UInt64] {
        var times: [Int32: UInt64] = [:]
        for tid in tids {
            if let schedstat = ProcFS.readFile(ProcFS.taskPath(pid: target.pid, tid: tid, "schedstat")).flatMap(
                ProcSchedstat.parse)
            {
                times[tid] = schedstat.onCPUNs
            } else if let stat = ProcFS.taskStat(pid: target.pid, tid: tid) {
                times[tid] = stat.cpuTicks * (1_000_000_000 / ProcFS.ticksPerSecond)
            }
        }
        return times
    }

    /// One stack per thread from attach's sampler (the thread's /proc state is read just before
    /// its pause), symbolized; the reason when ptrace was refused. A thread that did not stop
    /// within the sampler's bound (on a loaded machine a runnable thread may wait that long for a
    /// CPU) is asked again, up to `attempts` rounds: each pause stays bounded, and waiting for a
    /// stop costs the thread nothing (it runs until it stops). Three rounds left a busy loop
    /// without a stack beside two compiler builds and a busy loop per core. Also the files the
    /// process names that could not be read.
    private func stacks(_ tids: [Int32], attempts: Int = 8)
        -> ([Int32: ResolvedSample], String?, [TargetFileProblem])
    {
        let symbolizer = Symbolizer()
        var byThread: [Int32: ResolvedSample] = [:]
        var problems: [TargetFileProblem] = []
        for _ in 0..<attempts {
            let missing = tids.filter { byThread[$0] == nil }
            guard !missing.isEmpty else { break }
            let round = sampleOnce(missing)
            problems += round.fileProblems.filter { !problems.contains($0) }
            if let reason = round.unavailable { return (byThread, reason, problems) }
            for (key, samples) in round.samples {
                guard
                    let sample = round.resolved(key: key, samples: samples, pid: target.pid, symbolizer: symbolizer)
                        .first
                else { continue }
                byThread[sample.sample.tid] = sample
            }
        }
        return (byThread, nil, problems)
    }

    /// One sample of each of `tids`, every thread detached when it returns.
    private func sampleOnce(_ tids: [Int32]) -> StackSampler.Result {
        let pid = target.pid
        let sampler = StackSampler(
            pid: pid, clock: MonotonicClock.nowNs, readState: { tid in ProcFS.threadState(pid: pid, tid: tid) })
        do {
            try sampler.start()
        } catch {
            return StackSampler.Result(
                samples: [:], maps: [:], unavailable: "the sampler thread could not start: \(error)", failures: 0)
        }
        for tid in tids {
            sampler.request(.sample(tid: tid, key: UInt64(UInt32(bitPattern: tid))))
            sampler.request(.finish(tid: tid, key: UInt64(UInt32(bitPattern: tid))))
        }
        return sampler.stop()
    }

    private func thread(
        _ tid: Int32, sample: ResolvedSample?, readings: (busy: Int, waiting: Int), cpuNs: UInt64, lookedNs: UInt64,
        totalNs: UInt64
    ) -> ThreadDump {
        let state = sample?.sample.state ?? ProcFS.threadState(pid: target.pid, tid: tid)
        return ThreadDump(
            tid: tid, name: ProcFS.taskStat(pid: target.pid, tid: tid)?.comm ?? "?", isMain: tid == target.pid,
            activity: ThreadDump.activity(of: state), schedulerState: state?.state.rawValue ?? "?",
            syscall: state?.syscall?.name, descriptor: state?.syscall?.descriptorTarget, wchan: state?.wchan,
            busyReadings: readings.busy, readings: readings.busy + readings.waiting,
            cpuPct: Double(cpuNs) * 100 / Double(lookedNs), cpuTotalNs: totalNs, frames: sample?.frames ?? [],
            unwind: sample?.sample.outcome, pauseNs: sample?.sample.pauseNs)
    }

    private static func unixNowNs() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(max(now.tv_sec, 0)) * 1_000_000_000 + UInt64(max(now.tv_nsec, 0))
    }
}
