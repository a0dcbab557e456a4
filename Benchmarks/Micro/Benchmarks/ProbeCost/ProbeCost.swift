// What the probe costs the thread it runs in, measured in-process on ordo-one/benchmark; `make
// bench` (scripts/bench) reads the results into docs/benchmarks.md.
//
// Every measured iteration makes 1000 calls (scaling factor kilo), so the harness's own clock
// reads around an iteration are below the noise. Each probe path has its clock read alone beside
// it, so the probe's own work shows as the difference:
//   Monotonic clock read      clock_gettime (vDSO), the clock lagmon_probe_record reads
//   Observer record           lagmon_probe_record, alternating before-timers and before-sources
//                             (a run loop that never sleeps): what a CFRunLoop observer call costs
//   Counter clock read        the wait-call probe's clock (time-stamp counter, calibrated)
//   Wait-call probe per wait  counter clock + before-waiting record + counter clock +
//                             after-waiting record: what the preload shim adds to one wait
//   Strict wrapper off the loop thread
//                             the preload shim's getaddrinfo wrapper (dlopened from the built
//                             libLagmonPreload.so) on a thread that runs no loop, with arguments
//                             libc rejects before any work (no node, no service): what StrictMode
//                             adds to an intercepted call off a loop thread (every wrapper shares
//                             that path: a thread-local load and a compare before the real call)
//   getaddrinfo alone         the same call straight to libc, beside it
//   Strict record             lagmon_strict_record into a slot: what a counted call on a loop
//                             thread adds besides its two counter clock reads
//   Swift pool job wrapper    lagmon_swift_job_run_pool around an (almost) empty job: what the
//                             preload shim adds to each job of the cooperative pool (lagmon's tick
//                             + after-waiting record, the job, the tick + before-waiting; one job in
//                             64 timed by the counter clock instead)
//   Swift main-actor job wrapper
//                             lagmon_swift_job_run_main, the same for a main-actor job (it also
//                             keeps the slot's tid and its timestamps in order across threads)
//   Swift job alone           the same job called straight through the same function pointer
import Benchmark
import CLagmonProbe
import CLagmonShared
import Glibc

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        // No cpuTotal: /proc/self/stat counts whole scheduler ticks (10 ms), far longer than an
        // iteration. No instructions: perf counters are not available in every VM (they read 0).
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 10_000
    )

    Benchmark("Monotonic clock read") { benchmark in
        var sum: UInt64 = 0
        for _ in benchmark.scaledIterations { sum &+= lagmon_probe_now_ns(0) }
        blackHole(sum)
    }

    let observed = ProbeSlot()
    let base = channelClockBase
    Benchmark("Observer record") { benchmark in
        let slot = observed.pointer
        for index in benchmark.scaledIterations {
            let activity = index & 1 == 0 ? LAGMON_ACTIVITY_BEFORE_TIMERS : LAGMON_ACTIVITY_BEFORE_SOURCES
            lagmon_probe_record(slot, activity.rawValue, base)
        }
    }

    let clock = CounterClock()
    Benchmark("Counter clock read") { benchmark in
        var sum: UInt64 = 0
        for _ in benchmark.scaledIterations { sum &+= clock.now() }
        blackHole(sum)
    }

    let waiting = ProbeSlot()
    Benchmark("Wait-call probe per wait") { benchmark in
        let slot = waiting.pointer
        for _ in benchmark.scaledIterations {
            lagmon_probe_record_at(slot, LAGMON_ACTIVITY_BEFORE_WAITING.rawValue, clock.now())
            lagmon_probe_record_at(slot, LAGMON_ACTIVITY_AFTER_WAITING.rawValue, clock.now())
        }
    }

    if let wrapped = PreloadWrapper.getaddrinfo, let direct = PreloadWrapper.libcGetaddrinfo {
        Benchmark("Strict wrapper off the loop thread") { benchmark in
            var sum: Int32 = 0
            for _ in benchmark.scaledIterations { sum &+= wrapped(nil, nil, nil, nil) }
            blackHole(sum)
        }
        Benchmark("getaddrinfo alone") { benchmark in
            var sum: Int32 = 0
            for _ in benchmark.scaledIterations { sum &+= direct(nil, nil, nil, nil) }
            blackHole(sum)
        }
    }

    let counted = ProbeSlot()
    Benchmark("Strict record") { benchmark in
        let slot = counted.pointer
        // Eight call sites, as a loop calling from a few places: each call finds its entry.
        for index in benchmark.scaledIterations {
            lagmon_strict_record(slot, LAGMON_STRICT_READ.rawValue, 0x40_1000 + UInt64(index & 7) * 16, 1_000)
        }
    }

    // The shim calls the runtime's job entry through a pointer it learnt at run time; so do
    // these, through an object the optimizer cannot see into.
    let job = SwiftJob()
    let jobClock = CounterClock()
    let pooled = ProbeSlot()
    let tick = SwiftTick()
    Benchmark("Swift pool job wrapper") { benchmark in
        let (slot, entry, context) = (pooled.pointer, job.entry, job.context)
        for _ in benchmark.scaledIterations {
            lagmon_swift_job_run_pool(
                slot, tick.pointer, jobClock.precise, jobClock.state, jobClock.slow, entry, context)
        }
        blackHole(job.context.load(as: Int.self))
    }
    let mainActor = ProbeSlot()
    let tid = Int32(getpid())  // any tid: the slot keeps it after the first job
    Benchmark("Swift main-actor job wrapper") { benchmark in
        let (slot, entry, context) = (mainActor.pointer, job.entry, job.context)
        for _ in benchmark.scaledIterations {
            lagmon_swift_job_run_main(slot, tid, jobClock.state, jobClock.slow, entry, context)
        }
        blackHole(job.context.load(as: Int.self))
    }
    Benchmark("Swift job alone") { benchmark in
        let (run, context) = (job.run, job.context)
        for _ in benchmark.scaledIterations { run(context) }
        blackHole(job.context.load(as: Int.self))
    }
}

/// The preload shim's getaddrinfo wrapper and libc's own, for the StrictMode rows. The shim is
/// dlopened locally (it interposes nothing in this process) from LAGMON_PRELOAD_LIBRARY, or from
/// lagmon's release build; nil (the rows are skipped) when it is not built.
enum PreloadWrapper {
    typealias Function =
        @convention(c) (
            UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<addrinfo>?,
            UnsafeMutablePointer<UnsafeMutablePointer<addrinfo>?>?
        ) -> Int32

    nonisolated(unsafe) static let library: UnsafeMutableRawPointer? = {
        let root = #filePath.split(separator: "/").dropLast(5).joined(separator: "/")
        let path =
            getenv("LAGMON_PRELOAD_LIBRARY").map { String(cString: $0) }
            ?? "/\(root)/.build/release/libLagmonPreload.so"
        return dlopen(path, RTLD_NOW | RTLD_LOCAL)
    }()

    static let getaddrinfo: Function? = library.flatMap { dlsym($0, "getaddrinfo") }.map {
        unsafeBitCast($0, to: Function.self)
    }

    /// libc's, found from the program's global scope (RTLD_DEFAULT), which the shim is not in.
    static let libcGetaddrinfo: Function? = dlsym(nil, "getaddrinfo").map {
        unsafeBitCast($0, to: Function.self)
    }
}

/// A stand-in for a Swift job: a function that counts its calls in its context, called through a
/// pointer as libdispatch calls the runtime's job entry.
final class SwiftJob: @unchecked Sendable {
    let context = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
    var run: lagmon_swift_job_function = { context in
        guard let context else { return }
        context.storeBytes(of: context.load(as: Int.self) &+ 1, as: Int.self)
    }

    /// Where the job path reads `run` from, as the shim keeps the runtime's entry.
    let entry = UnsafeMutablePointer<lagmon_swift_job_function?>.allocate(capacity: 1)

    init() {
        context.storeBytes(of: 0, as: Int.self)
        entry.initialize(to: run)
    }

    deinit {
        context.deallocate()
        entry.deallocate()
    }
}

/// Where this process's channel clock starts: as in a target, its readings are small and positive.
let channelClockBase = lagmon_probe_now_ns(0) - 1_000_000

/// A zeroed channel slot in this process's memory: a loop that has not stalled yet.
final class ProbeSlot: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<lagmon_slot>

    init() {
        pointer = .allocate(capacity: 1)
        UnsafeMutableRawPointer(pointer).initializeMemory(
            as: UInt8.self, repeating: 0, count: MemoryLayout<lagmon_slot>.size)
        pointer.pointee.stall_threshold_ns = 100_000_000
        pointer.pointee.wake_ns = UInt64.max
    }

    deinit { pointer.deallocate() }
}

/// lagmon's tick as a pool job reads it, through where the shim keeps its address (a ticker stores
/// it every few ms; none runs here, and jobs this short would end at the tick they began at anyway).
final class SwiftTick: @unchecked Sendable {
    let tick: UnsafeMutablePointer<lagmon_swift_tick>
    let pointer: UnsafeMutablePointer<UnsafePointer<lagmon_swift_tick>?>

    init() {
        tick = .allocate(capacity: 1)
        tick.initialize(to: lagmon_swift_tick())
        tick.pointee.now_ns = lagmon_probe_now_ns(channelClockBase)
        tick.pointee.period_ns = 2_000_000
        tick.pointee.slack_ns = 4_000_000
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: UnsafePointer(tick))
    }

    deinit {
        tick.deallocate()
        pointer.deallocate()
    }
}

/// The wait-call probe's per-thread counter clock, calibrated as a loop thread's is after 10 ms.
final class CounterClock: @unchecked Sendable {
    let state: UnsafeMutablePointer<lagmon_tsc_clock>
    let precise: @convention(c) () -> UInt64 = { lagmon_probe_now_ns(channelClockBase) }
    let counter: @convention(c) () -> UInt64 = { lagmon_tsc_read() }
    /// The Swift job path's slow clock, as the shim's: the counter clock's own slow path.
    let slow: lagmon_swift_job_slow_clock = { clock, tsc in
        lagmon_tsc_clock_now(clock, tsc, { lagmon_probe_now_ns(channelClockBase) }, { lagmon_tsc_read() })
    }

    init() {
        state = .allocate(capacity: 1)
        state.initialize(to: lagmon_tsc_clock())
        let calibrated = lagmon_probe_now_ns(0) + 20_000_000
        while lagmon_probe_now_ns(0) < calibrated { _ = now() }
    }

    deinit { state.deallocate() }

    /// The channel clock now.
    func now() -> UInt64 { lagmon_tsc_clock_now(state, lagmon_tsc_read(), precise, counter) }
}
