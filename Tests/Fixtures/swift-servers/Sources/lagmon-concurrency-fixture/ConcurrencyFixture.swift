// An async-main Swift program (no run loop: the main thread parks in dispatchMain) that stalls on
// purpose, once per kind of Swift-concurrency stall, in distinctively named functions. Each phase
// prints what it measured itself on stdout (tests compare lagmon's report with these lines):
//
//   main-actor ms=<busy>          mainActorHandlesRequest() spins the CPU for 300 ms on the main
//                                 actor, after an await (so a libdispatch worker runs it)
//   pool-blocked ms=<blocked>     poolJobBlocksThread() sleeps 250 ms on a cooperative thread
//   starved ms=<all> threads=<n>  starvesCooperativePool(): n tasks, one per CPU (the pool's
//                                 width), each block their thread for 400 ms at the same time;
//                                 <all> is how long every one of them was blocked together
//   done
//
// `lagmon-concurrency-fixture nested` instead runs one chain of awaits on the pool:
// outerAwaitsMiddle() awaits middleAwaitsInner(), which awaits innerBlocksPoolThread(), which
// blocks its cooperative thread 300 ms (after an await, so a job of its own runs it); it prints
// `nested ms=<blocked>` and `done`. Only inner is on the thread's stack: middle and outer are its
// logical callers, in the async context chain.
//
// `lagmon-concurrency-fixture bench N` instead makes N `await Task.yield()` calls in a detached
// task (N cooperative-pool jobs), then N/10 on the main actor (main-actor jobs: each is a hand-off
// between libdispatch threads, some 10x slower), and prints
// `{"poolNsPerYield": …, "mainActorNsPerYield": …, "poolCpuNsPerYield": …, "mainActorCpuNsPerYield": …}`:
// wall-clock and process CPU time (every thread's) per yield (make bench compares it alone and under lagmon).
import Glibc
import Synchronization

/// Monotonic time in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Writes one line to stdout at once (unbuffered: tests read it while the program runs).
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func milliseconds(_ nanoseconds: UInt64) -> String { String(Double(nanoseconds) / 1e6) }

/// Main-actor work that hogs the actor: the spin is in this async function's own body, after an
/// await, so its frame is a resume partial function of it.
@MainActor
func mainActorHandlesRequest() async -> UInt64 {
    await Task.yield()
    // The clock is read here, not through monotonicNanoseconds(): the samples' innermost
    // application frame must be this function.
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    let start = UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    var now = start
    while now - start < 300_000_000 {
        clock_gettime(CLOCK_MONOTONIC, &time)
        now = UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
    return now - start
}

/// Blocks a cooperative thread (a blocking call in async code).
@inline(never)
func poolJobBlocksThread() -> UInt64 {
    let start = monotonicNanoseconds()
    usleep(250_000)
    return monotonicNanoseconds() - start
}

/// When each starving task began and ended blocking its thread.
final class Spans: Sendable {
    let arrived = Atomic<Int>(0)
    let starts = Mutex<[UInt64]>([])
    let ends = Mutex<[UInt64]>([])
}

/// Blocks a cooperative thread until all `count` threads are blocked, then 400 ms more.
@inline(never)
func starvesCooperativePool(count: Int, spans: Spans) {
    let start = monotonicNanoseconds()
    spans.starts.withLock { $0.append(start) }
    spans.arrived.add(1, ordering: .sequentiallyConsistent)
    // Blocking on purpose: wait (at most 2 s) for the other tasks to hold their threads too.
    while spans.arrived.load(ordering: .sequentiallyConsistent) < count
        && monotonicNanoseconds() - start < 2_000_000_000
    {
        usleep(1000)
    }
    usleep(400_000)
    spans.ends.withLock { $0.append(monotonicNanoseconds()) }
}

/// The outer function of the nested chain.
@inline(never)
func outerAwaitsMiddle() async -> UInt64 {
    let blocked = await middleAwaitsInner()
    return blocked
}

/// The middle function of the nested chain.
@inline(never)
func middleAwaitsInner() async -> UInt64 {
    let blocked = await innerBlocksPoolThread()
    return blocked
}

/// The innermost function of the nested chain: blocks a cooperative thread in a job of its own.
@inline(never)
func innerBlocksPoolThread() async -> UInt64 {
    await Task.yield()
    let start = monotonicNanoseconds()
    usleep(300_000)
    return monotonicNanoseconds() - start
}

@main
struct ConcurrencyFixture {
    static func main() async {
        if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "bench",
            let count = Int(CommandLine.arguments[2])
        {
            await bench(count)
            return
        }
        if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "nested" {
            let blocked = await Task.detached { await outerAwaitsMiddle() }.value
            say("nested ms=\(milliseconds(blocked))")
            say("done")
            return
        }
        // Each line is printed after the next await, in a later job: the stalled job's work is
        // only what was measured.
        let busy = await mainActorHandlesRequest()
        let blocked = await Task.detached { poolJobBlocksThread() }.value
        say("main-actor ms=\(milliseconds(busy))")
        say("pool-blocked ms=\(milliseconds(blocked))")

        let width = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let spans = Spans()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<width {
                group.addTask { starvesCooperativePool(count: width, spans: spans) }
            }
        }
        let lastStart = spans.starts.withLock { $0.max() ?? 0 }
        let firstEnd = spans.ends.withLock { $0.min() ?? 0 }
        let together = firstEnd > lastStart ? firstEnd - lastStart : 0
        say("starved ms=\(milliseconds(together)) threads=\(spans.arrived.load(ordering: .sequentiallyConsistent))")
        say("done")
    }

    /// The process's CPU time (every thread, user and system) in nanoseconds.
    static func processCpuNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// `count` yields on the pool, then `count / 10` on the main actor; nanoseconds per yield of
    /// each, wall-clock and CPU.
    @MainActor
    static func bench(_ count: Int) async {
        let cpuStart = processCpuNanoseconds()
        let poolNs = await Task.detached {
            let start = monotonicNanoseconds()
            for _ in 0..<count { await Task.yield() }
            return monotonicNanoseconds() - start
        }.value
        let poolCpuNs = processCpuNanoseconds() - cpuStart
        let actorCount = max(1, count / 10)
        let actorCpuStart = processCpuNanoseconds()
        let start = monotonicNanoseconds()
        for _ in 0..<actorCount { await Task.yield() }
        let actorNs = monotonicNanoseconds() - start
        let actorCpuNs = processCpuNanoseconds() - actorCpuStart
        let perPool = { (ns: UInt64) in Double(ns) / Double(count) }
        let perActor = { (ns: UInt64) in Double(ns) / Double(actorCount) }
        say(
            "{\"poolNsPerYield\": \(perPool(poolNs)), \"mainActorNsPerYield\": \(perActor(actorNs)), "
                + "\"poolCpuNsPerYield\": \(perPool(poolCpuNs)), \"mainActorCpuNsPerYield\": \(perActor(actorCpuNs))}"
        )
    }
}
