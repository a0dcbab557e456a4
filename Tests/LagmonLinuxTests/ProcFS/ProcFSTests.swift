import CLagmonLinux
import Foundation
import Glibc
import LagmonCore
import LagmonTestSupport
import Synchronization
import Testing

@testable import LagmonLinux

/// The /proc readers against real threads: this test process's own, parked in distinctive
/// system calls, and the bundled demo for the CPU sampler. Readiness is always a condition
/// polled in /proc, never a sleep.
@Suite(.serialized)
struct ProcFSTests {
    /// A thread's kernel id, published by the thread itself.
    final class TidBox: Sendable {
        let tid = Atomic<Int32>(0)
        func publish() { tid.store(lagmon_gettid(), ordering: .sequentiallyConsistent) }
        var value: Int32? {
            let tid = tid.load(ordering: .sequentiallyConsistent)
            return tid == 0 ? nil : tid
        }
    }

    /// The state of thread `box.tid` once `condition` holds for it.
    func stateOnce(_ box: TidBox, _ condition: (ThreadStateSample) -> Bool) -> ThreadStateSample? {
        pollValue(seconds: 10) {
            box.value.flatMap { ProcFS.threadState(pid: getpid(), tid: $0) }.flatMap { condition($0) ? $0 : nil }
        }
    }

    // MARK: Files and listings

    @Test func listsThisProcessThreads() {
        let tids = ProcFS.taskIDs(pid: getpid())
        #expect(tids.contains(getpid()))
        #expect(tids.contains(lagmon_gettid()))
        #expect(tids == tids.sorted())
        #expect(ProcFS.taskIDs(pid: getpid(), limit: 1).count == 1)
    }

    @Test func readsThisThreadsStat() throws {
        let tid = lagmon_gettid()
        let stat = try #require(ProcFS.taskStat(pid: getpid(), tid: tid))
        #expect(stat.tid == tid)
        #expect(stat.state == .running)
        #expect(stat.processor >= 0)
        let processStart = try #require(ProcFS.taskStat(pid: getpid(), tid: getpid())).startTimeTicks
        #expect(stat.startTimeTicks >= processStart)
    }

    @Test func readFileReturnsContentsOrNil() {
        #expect(ProcFS.readFile("/proc/self/stat").map(ProcTaskStat.parse)??.tid == getpid())
        #expect(ProcFS.readFile("/proc/self/no-such-file") == nil)
        #expect(ProcFS.readFile("/proc/\(Int32.max)/stat") == nil)
        #expect(ProcFS.readFile("/") == nil)
    }

    @Test func goneProcessesAndThreadsReadAsNil() {
        #expect(ProcFS.taskIDs(pid: Int32.max).isEmpty)
        #expect(ProcFS.taskStat(pid: getpid(), tid: Int32.max) == nil)
        #expect(ProcFS.threadState(pid: getpid(), tid: Int32.max) == nil)
        #expect(ProcFS.threadState(pid: Int32.max, tid: Int32.max) == nil)
    }

    @Test func aThreadThatExitedReadsAsNil() throws {
        let box = TidBox()
        let thread = try JoinableThread(name: "procfs-gone") { box.publish() }
        thread.join()
        let tid = try #require(box.value)
        // The kernel releases the task shortly after the join returns.
        #expect(pollValue(seconds: 10) { ProcFS.taskStat(pid: getpid(), tid: tid) == nil ? true : nil } == true)
        #expect(ProcFS.threadState(pid: getpid(), tid: tid) == nil)
        #expect(!ProcFS.taskIDs(pid: getpid()).contains(tid))
    }

    // MARK: Threads parked in system calls

    @Test func aThreadBlockedReadingAPipe() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        // Moved away from its write end (the neighbouring number, and the same pipe inode), so
        // reading the wrong descriptor shows.
        let readEnd = fcntl(fds[0], F_DUPFD_CLOEXEC, 100)
        try #require(readEnd >= 100)
        close(fds[0])
        let writeEnd = fds[1]
        defer { [readEnd, writeEnd].forEach { close($0) } }
        let box = TidBox()
        let thread = try JoinableThread(name: "procfs-reader") {
            box.publish()
            var byte: UInt8 = 0
            _ = Glibc.read(readEnd, &byte, 1)
        }
        defer {
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
            thread.join()
        }
        let sample = try #require(stateOnce(box) { $0.syscall?.number == 0 })
        #expect(sample.state == .sleeping)
        let syscall = try #require(sample.syscall)
        #expect(syscall.name == "read")
        #expect(syscall.arguments.count == 6)
        #expect(syscall.arguments[0] == UInt64(readEnd))
        #expect(syscall.arguments[2] == 1)
        let target = try #require(syscall.descriptorTarget)
        #expect(target.hasPrefix("pipe:["))
        #expect(target == (try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(readEnd)")))
        #expect(sample.onCPUNs > 0)
        let tid = try #require(box.value)
        let stat = try #require(ProcFS.taskStat(pid: getpid(), tid: tid))
        #expect(stat.comm == "procfs-reader")
    }

    @Test func aThreadWaitingForAMutex() throws {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        defer {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }
        let address = UInt(bitPattern: mutex)
        pthread_mutex_lock(mutex)
        let box = TidBox()
        let thread = try JoinableThread(name: "procfs-waiter") {
            box.publish()
            let mutex = UnsafeMutablePointer<pthread_mutex_t>(bitPattern: address)
            pthread_mutex_lock(mutex!)
            pthread_mutex_unlock(mutex!)
        }
        defer {
            pthread_mutex_unlock(mutex)
            thread.join()
        }
        let sample = try #require(stateOnce(box) { $0.syscall?.name == "futex" })
        let syscall = try #require(sample.syscall)
        #expect(syscall.number == 202)
        #expect(SyscallTable.isLockWait(syscall.number))
        #expect(syscall.descriptorTarget == nil)
        // The futex word is the mutex's first field.
        #expect(syscall.arguments[0] == UInt64(address))
        #expect(sample.state == .sleeping)
    }

    @Test func aSleepingThread() throws {
        let box = TidBox()
        let stopping = Flag()
        let thread = try JoinableThread(name: "procfs-sleeper") {
            box.publish()
            while !stopping.value.load(ordering: .sequentiallyConsistent) { usleep(20_000) }
        }
        defer {
            stopping.value.store(true, ordering: .sequentiallyConsistent)
            thread.join()
        }
        let sample = try #require(stateOnce(box) { $0.syscall.map { SyscallTable.isSleep($0.number) } ?? false })
        #expect(sample.syscall?.name == "clock_nanosleep")
        #expect(sample.syscall?.descriptorTarget == nil)
        #expect(sample.state == .sleeping)
    }

    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }
}

/// The CPU sampler against the bundled demo (`--scenario spin` burns a core on a worker thread
/// while the loop idles).
@Suite(.serialized)
struct ThreadCPUSamplerTests {
    static let demo = Binaries.demo

    struct Run {
        var pid: Int32
        var tracker: ThreadCPUTracker
        var events: [CPUAlertEvent]
        var cost: ThreadCPUSampler.Cost
        var wallNs: UInt64
    }

    /// Runs the demo with `arguments` under a sampler (100 ms, alert at 70 %, 2 intervals, 5 s
    /// cooldown) until it exits.
    /// `fromStat`: CPU time from `stat` in clock ticks (the fallback where the kernel has no
    /// `schedstat`) instead of `schedstat` in nanoseconds.
    func sample(_ arguments: [String], fromStat: Bool = false) throws -> Run {
        let events = Mutex<[CPUAlertEvent]>([])
        let spawnNs = MonotonicClock.nowNs()
        let pid = try spawnDemo(arguments)
        let tracker = ThreadCPUTracker(
            configuration: .init(
                ticksPerSecond: fromStat ? ProcFS.ticksPerSecond : ThreadCPUSampler.cpuTicksPerSecond(pid: pid),
                targetStartNs: spawnNs, alertPct: 70, sustainIntervals: 2,
                alertCooldownNs: 5_000_000_000))
        let sampler = ThreadCPUSampler(pid: pid, tracker: tracker, intervalNs: 100_000_000) { event in
            events.withLock { $0.append(event) }
        }
        try sampler.start()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let final = sampler.stop()
        return Run(
            pid: pid, tracker: final, events: events.withLock { $0 }, cost: sampler.cost,
            wallNs: MonotonicClock.nowNs() - spawnNs)
    }

    /// Spawns the demo with stdout on /dev/null, an empty signal mask, and in a session of its
    /// own. The session gives it its own scheduler autogroup, whose weight is then raised: with
    /// autogroups, CPU is shared between sessions first, so on a machine busy with other
    /// sessions (parallel builds, other test runs) a thread that spins would get a fraction of
    /// a core, and the percentages would not be what the test says. Without the privilege the
    /// weight stays as it is.
    func spawnDemo(_ arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        // POSIX_SPAWN_SETSID is 0x80 (glibc >= 2.26), behind _GNU_SOURCE, which Swift's Glibc lacks.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK) | 0x80)
        var pid = pid_t()
        let result = withCStrings([Self.demo] + arguments) { argv in
            posix_spawn(&pid, Self.demo, &actions, &attributes, argv, environ)
        }
        guard result == 0 else { throw SystemError("posix_spawn", code: result) }
        let autogroup = open("/proc/\(pid)/autogroup", O_WRONLY | O_CLOEXEC)
        if autogroup >= 0 {
            _ = write(autogroup, "-15", 3)
            close(autogroup)
        }
        return pid
    }

    @Test func cpuTimeComesFromSchedstatInNanoseconds() {
        #expect(ThreadCPUSampler.cpuTicksPerSecond(pid: getpid()) == 1_000_000_000)
        #expect(ThreadCPUSampler.cpuTicksPerSecond(pid: Int32.max) == ProcFS.ticksPerSecond)
    }

    @Test(arguments: [false, true])
    func aBurningThreadIsMeasuredAndAlertsOnce(fromStat: Bool) throws {
        let run = try sample(["--scenario", "spin", "--seconds", "1.5"], fromStat: fromStat)
        let reports = run.tracker.reports()
        // The busiest thread is the demo's burner (it names itself from inside the thread).
        let burner = try #require(reports.first)
        #expect(burner.tid != run.pid)
        #expect(burner.name == "cpu-burner")
        #expect(burner.cpu.maxPct >= 80)
        #expect(reports.dropFirst().allSatisfy { $0.cpu.maxPct < 70 })
        // One thread cannot use more CPU than the run lasted (plus a tick of rounding).
        #expect(burner.cpu.totalNs <= run.wallNs + 10_000_000)
        #expect(burner.cpu.totalNs >= 500_000_000)
        #expect(burner.alerts.count == 1)
        let events = run.events.filter { $0.tid == burner.tid }
        #expect(events.count == 1)
        #expect((events.first?.alert.cpuPct ?? 0) >= 70)
        #expect(events.first?.alert == burner.alerts.first)
        #expect(events.first.map { $0.alert.atNs < run.wallNs } == true)
        #expect(run.cost.passes >= 5)
        #expect(run.cost.threadsRead >= run.cost.passes)
        #expect(run.cost.cpuNs > 0)
    }

    @Test func anIdleLoopRaisesNothing() throws {
        let run = try sample(["--scenario", "idle", "--seconds", "1"])
        #expect(run.events.isEmpty)
        let main = try #require(run.tracker.reports().first { $0.tid == run.pid })
        #expect(main.cpu.avgPct < 10)
        #expect(main.alerts.isEmpty)
    }

    /// `/proc/<pid>/task`'s link count is the process's thread count plus two, so one fstat tells
    /// the sampler whether threads came or went; a process that is gone counts none. The
    /// sampler then lists a steady process's threads once, not every few passes.
    @Test func theTaskDirectoryCountsThreadsAndASteadyProcessIsListedOnce() throws {
        let pid = try spawnDemo(["--scenario", "threads", "--threads", "300", "--seconds", "600"])
        var reaped = false
        defer {
            if !reaped {
                kill(pid, SIGKILL)
                waitpid(pid, nil, 0)
            }
        }
        let directory = open("/proc/\(pid)/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(directory >= 0)
        defer { close(directory) }
        // Until every thread started (bounded): then the count and a listing agree.
        let deadline = MonotonicClock.nowNs() + 30_000_000_000
        var listed = 0
        while MonotonicClock.nowNs() < deadline {
            listed = ProcFS.taskIDs(pid: pid).count
            if listed > 300 && ProcFS.threadCount(taskDirectory: directory) == listed { break }
            usleep(10_000)
        }
        #expect(listed > 300)
        #expect(ProcFS.threadCount(taskDirectory: directory) == listed)
        let tracker = ThreadCPUTracker(
            configuration: .init(ticksPerSecond: ThreadCPUSampler.cpuTicksPerSecond(pid: pid), targetStartNs: 0))
        let sampler = ThreadCPUSampler(pid: pid, tracker: tracker, intervalNs: 1_000_000)
        try sampler.start()
        while sampler.cost.passes < 20 && MonotonicClock.nowNs() < deadline { usleep(1_000) }
        _ = sampler.stop()
        #expect(sampler.cost.passes >= 20)
        // Every thread accounted for on every pass: read, or carried over unchanged.
        #expect(sampler.cost.threadsRead + sampler.cost.threadsCarried >= sampler.cost.passes * UInt64(listed))
        // Listed on the first pass; again only if a thread came or went (none should have).
        #expect(sampler.cost.listings <= 2, "\(sampler.cost.listings) listings in \(sampler.cost.passes) passes")
        kill(pid, SIGKILL)
        waitpid(pid, nil, 0)
        reaped = true
        #expect(ProcFS.threadCount(taskDirectory: directory) == 0)
    }

    /// Stat files stay open between reads and give fresh contents each time; a thread that
    /// exited reads as nil and its file is closed; no more than `maxOpen` stay open.
    @Test func threadFilesAreReadAgainFromTheSameDescriptor() throws {
        let files = ThreadFiles(pid: getpid(), file: "schedstat", maxOpen: 1)
        let tid = lagmon_gettid()
        let first = try #require(files.read(tid: tid, ProcSchedstat.parse))
        #expect(files.openCount == 1)
        // Spin until this thread itself has used 20 ms of CPU (its own clock, not the wall's: a
        // busy machine may give it a fraction of the wall time).
        var sink: UInt64 = 0
        let until = Self.threadCPUNs() + 20_000_000
        while Self.threadCPUNs() < until { sink &+= 1 }
        let second = try #require(files.read(tid: tid, ProcSchedstat.parse))
        #expect(second.onCPUNs > first.onCPUNs + 10_000_000, "fresh, not cached: \(sink)")
        #expect(files.openCount == 1)
        let other = Mutex<Int32>(0)
        let thread = try JoinableThread(name: "short-lived") { other.withLock { $0 = lagmon_gettid() } }
        thread.join()
        let exited = other.withLock { $0 }
        #expect(files.read(tid: exited, ProcSchedstat.parse) == nil)
        #expect(files.openCount == 1, "the budget of one is taken by the first thread")
        files.forget(allBut: [])
        #expect(files.openCount == 0)
    }

    /// The CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID).
    static func threadCPUNs() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    @Test func aMissingTargetYieldsNoThreadsAndNoPasses() throws {
        let sampler = ThreadCPUSampler(
            pid: Int32.max, tracker: ThreadCPUTracker(configuration: .init(ticksPerSecond: 100, targetStartNs: 0)))
        try sampler.start()
        #expect(sampler.stop().reports().isEmpty)
        #expect(sampler.cost.passes == 0)
    }
}
