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
import Benchmark
import CLagmonProbe
import CLagmonShared

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

/// The wait-call probe's per-thread counter clock, calibrated as a loop thread's is after 10 ms.
final class CounterClock: @unchecked Sendable {
    private let state: UnsafeMutablePointer<lagmon_tsc_clock>
    private let precise: @convention(c) () -> UInt64 = { lagmon_probe_now_ns(channelClockBase) }

    init() {
        state = .allocate(capacity: 1)
        state.initialize(to: lagmon_tsc_clock())
        let calibrated = lagmon_probe_now_ns(0) + 20_000_000
        while lagmon_probe_now_ns(0) < calibrated { _ = now() }
    }

    deinit { state.deallocate() }

    /// The channel clock now.
    func now() -> UInt64 { lagmon_tsc_clock_now(state, lagmon_tsc_read(), precise) }
}
