// A run loop spinning as fast as its shape lets it; the benchmark runs it with and without lagmon
// to measure the observer's cost on each common way of running a loop:
//
//   run     one long CFRunLoopRun; a version-0 source re-signals itself from its own callback,
//           so every pass runs one callback and never sleeps
//   pumped  the program pumps the loop itself: CFRunLoopRunInMode(default, 0, true) in a while
//           loop (what `RunLoop.current.run(mode:before:)` loops do) around the same source, so
//           every pass enters and exits the run loop
//   timer   one long CFRunLoopRun woken by a timer that re-arms itself to fire at once: every
//           pass goes to sleep and wakes (the timer's descriptor is already ready)
//   sleep   the same timer re-armed 50 µs ahead: every pass really sleeps
//
//   lagmon-hotloop [seconds] [shape]
//
// Prints passes, wall seconds, passes per second and the main thread's CPU time per pass (what
// the observer adds to the loop's own thread, unaffected by the sleeps and by preemption).
import CoreFoundation
import Foundation

final class HotLoop: @unchecked Sendable {
    var passes = 0
    var deadlineNs: UInt64 = 0
    var source: CFRunLoopSource?
    var timer: CFRunLoopTimer?
    var stopped = false
    var sleepSeconds = 0.0
}

func monotonicNs() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func threadCPUNs() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Counts a pass; true once the deadline passed (checked every 1024 passes: the clock read is
/// not what is measured).
func countPass(_ loop: HotLoop) -> Bool {
    loop.passes += 1
    if loop.passes & 1023 == 0 && monotonicNs() >= loop.deadlineNs { loop.stopped = true }
    return loop.stopped
}

let arguments = CommandLine.arguments
let seconds = arguments.count > 1 ? Double(arguments[1]) ?? 2 : 2
let shape = arguments.count > 2 ? arguments[2] : "run"
guard ["run", "pumped", "timer", "sleep"].contains(shape) else {
    FileHandle.standardError.write(Data("usage: lagmon-hotloop [seconds] [run|pumped|timer|sleep]\n".utf8))
    exit(64)
}
let loop = HotLoop()
loop.sleepSeconds = shape == "sleep" ? 50e-6 : 0
let info = Unmanaged.passUnretained(loop).toOpaque()

var sourceContext = CFRunLoopSourceContext()
sourceContext.info = info
sourceContext.perform = { info in
    let loop = Unmanaged<HotLoop>.fromOpaque(info!).takeUnretainedValue()
    if countPass(loop) {
        if shape == "run" { CFRunLoopStop(CFRunLoopGetMain()) }
        return
    }
    CFRunLoopSourceSignal(loop.source)
}

let timerFired: CFRunLoopTimerCallBack = { timer, info in
    let loop = Unmanaged<HotLoop>.fromOpaque(info!).takeUnretainedValue()
    if countPass(loop) {
        CFRunLoopStop(CFRunLoopGetMain())
        return
    }
    CFRunLoopTimerSetNextFireDate(timer, CFAbsoluteTimeGetCurrent() + loop.sleepSeconds)
}

/// The measured part, at the top level of the main thread.
@MainActor func measure() {
    let start = monotonicNs()
    let startCPU = threadCPUNs()
    loop.deadlineNs = start + UInt64(seconds * 1e9)
    switch shape {
    case "run":
        CFRunLoopSourceSignal(loop.source)
        CFRunLoopRun()
    case "pumped":
        CFRunLoopSourceSignal(loop.source)
        while !loop.stopped { _ = CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true) }
    default:
        // A far-future timer re-armed from its own callback; the first arming starts the passes.
        var timerContext = CFRunLoopTimerContext()
        timerContext.info = info
        loop.timer = CFRunLoopTimerCreate(nil, CFAbsoluteTimeGetCurrent() + 1e9, 1e9, 0, 0, timerFired, &timerContext)
        CFRunLoopAddTimer(CFRunLoopGetMain(), loop.timer, kCFRunLoopDefaultMode)
        CFRunLoopTimerSetNextFireDate(loop.timer, CFAbsoluteTimeGetCurrent())
        CFRunLoopRun()
    }
    let elapsed = Double(monotonicNs() - start) / 1e9
    let cpuNsPerPass = Double(threadCPUNs() - startCPU) / Double(max(loop.passes, 1))
    let rate = Int(Double(loop.passes) / elapsed)
    print("passes=\(loop.passes) seconds=\(elapsed) rate=\(rate) cpuNsPerPass=\(cpuNsPerPass) shape=\(shape)")
    exit(0)
}

loop.source = CFRunLoopSourceCreate(nil, 0, &sourceContext)
CFRunLoopAddSource(CFRunLoopGetMain(), loop.source, kCFRunLoopCommonModes)
// Sleep in the run loop once first, so the preload probe (installed from the loop's first wait)
// is in place before the measured passes start.
_ = CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.05, false)
measure()
