// Measurement helper for `make bench` (scripts/bench): runs lagmon's own components against a
// live process and prints JSON. Not part of lagmon.
//
//   lagmon-bench sample <pid> <count> <interval-ms>
//       stack-samples the main thread of <pid> with StackSampler; pause and end-to-end cost per
//       sample, unwind completeness, frames
//   lagmon-bench cpu <pid> <passes>
//       one ThreadCPUSampler pass over every thread of <pid>, <passes> times: CPU cost per pass
//   lagmon-bench callback <calls>
//       the observer's record function on a slot in this process: nanoseconds per call, for the
//       pattern of a loop that never sleeps (before-timers, before-sources, …)
//   lagmon-bench waitcall <waits>
//       what the preload shim adds to one wait of a loop thread, without the wait itself: the
//       counter clock and the before-waiting and after-waiting records, nanoseconds per wait
import CLagmonProbe
import CLagmonShared
import Foundation
import LagmonCore
import LagmonLinux

func emit(_ object: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

func sample(pid: Int32, count: Int, intervalMs: Int) throws {
    let sampler = StackSampler(
        pid: pid, clock: { MonotonicClock.nowNs() }, readState: { ProcFS.threadState(pid: pid, tid: $0) })
    try sampler.start()
    for _ in 0..<count {
        sampler.request(.sample(tid: pid, key: 1))
        usleep(useconds_t(intervalMs * 1000))
    }
    sampler.request(.finish(tid: pid, key: 1))
    let result = sampler.stop()
    let samples = result.samples[1] ?? []
    let map = result.maps[1] ?? ProcessMemoryMap([])
    let symbolizeStart = MonotonicClock.nowNs()
    let resolved = Symbolizer().symbolize(samples, map: map, pid: pid)
    let symbolizeNs = MonotonicClock.nowNs() - symbolizeStart
    emit([
        "samples": samples.count,
        "failures": result.failures,
        "pauseNs": samples.map(\.pauseNs),
        "unwindNs": samples.map(\.unwindNs),
        "complete": samples.filter { $0.outcome == .complete }.count,
        "frames": samples.map(\.addresses.count),
        "symbolizeNs": symbolizeNs,
        "topStack": (resolved.last?.frames ?? []).map { $0.symbol ?? $0.module },
    ])
}

func cpu(pid: Int32, passes: Int) throws {
    let tracker = ThreadCPUTracker(configuration: .init(ticksPerSecond: ProcFS.ticksPerSecond, targetStartNs: 0))
    let sampler = ThreadCPUSampler(pid: pid, tracker: tracker, intervalNs: 10_000_000)
    try sampler.start()
    while sampler.cost.passes < UInt64(passes) { usleep(5_000) }
    _ = sampler.stop()
    let cost = sampler.cost
    emit(["passes": cost.passes, "cpuNsPerPass": cost.cpuNsPerPass, "threadsRead": cost.threadsRead])
}

func callback(calls: Int) {
    let slot = UnsafeMutablePointer<lagmon_slot>.allocate(capacity: 1)
    UnsafeMutableRawPointer(slot).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<lagmon_slot>.size)
    slot.pointee.stall_threshold_ns = 100_000_000
    slot.pointee.wake_ns = UInt64.max
    let base = MonotonicClock.nowNs() - 1_000_000
    var best = UInt64.max
    for _ in 0..<5 {
        let start = MonotonicClock.nowNs()
        for index in 0..<calls {
            let activity = index & 1 == 0 ? LAGMON_ACTIVITY_BEFORE_TIMERS : LAGMON_ACTIVITY_BEFORE_SOURCES
            lagmon_probe_record(slot, activity.rawValue, base)
        }
        best = min(best, MonotonicClock.nowNs() - start)
    }
    emit(["calls": calls, "nsPerCall": Double(best) / Double(calls), "transitions": slot.pointee.transitions])
}

/// The channel clock the slow way, for the counter clock's calibration.
nonisolated(unsafe) var waitcallClockBase: UInt64 = 0

func waitcall(waits: Int) {
    let waitcallPrecise: @convention(c) () -> UInt64 = { MonotonicClock.nowNs() &- waitcallClockBase }
    let slot = UnsafeMutablePointer<lagmon_slot>.allocate(capacity: 1)
    UnsafeMutableRawPointer(slot).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<lagmon_slot>.size)
    slot.pointee.stall_threshold_ns = 100_000_000
    slot.pointee.wake_ns = UInt64.max
    waitcallClockBase = MonotonicClock.nowNs() - 1_000_000
    var clock = lagmon_tsc_clock()
    // Calibrate first, as a loop thread has after its first 10 ms.
    let calibrated = MonotonicClock.nowNs() + 20_000_000
    while MonotonicClock.nowNs() < calibrated { _ = lagmon_tsc_clock_now(&clock, lagmon_tsc_read(), waitcallPrecise) }
    var best = UInt64.max
    for _ in 0..<5 {
        let start = MonotonicClock.nowNs()
        for _ in 0..<waits {
            let entered = lagmon_tsc_clock_now(&clock, lagmon_tsc_read(), waitcallPrecise)
            lagmon_probe_record_at(slot, LAGMON_ACTIVITY_BEFORE_WAITING.rawValue, entered)
            let returned = lagmon_tsc_clock_now(&clock, lagmon_tsc_read(), waitcallPrecise)
            lagmon_probe_record_at(slot, LAGMON_ACTIVITY_AFTER_WAITING.rawValue, returned)
        }
        best = min(best, MonotonicClock.nowNs() - start)
    }
    emit(["waits": waits, "nsPerWait": Double(best) / Double(waits), "busyPeriods": slot.pointee.busy_count])
}

let arguments = CommandLine.arguments
switch (arguments.count > 1 ? arguments[1] : "", arguments.count) {
case ("sample", 5): try sample(pid: Int32(arguments[2])!, count: Int(arguments[3])!, intervalMs: Int(arguments[4])!)
case ("cpu", 4): try cpu(pid: Int32(arguments[2])!, passes: Int(arguments[3])!)
case ("callback", 3): callback(calls: Int(arguments[2])!)
case ("waitcall", 3): waitcall(waits: Int(arguments[2])!)
default:
    let usage =
        "usage: lagmon-bench sample <pid> <count> <interval-ms> | cpu <pid> <passes> | callback <calls> | waitcall <waits>\n"
    FileHandle.standardError.write(Data(usage.utf8))
    exit(64)
}
