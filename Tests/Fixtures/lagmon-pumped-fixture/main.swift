// A program that pumps the main run loop itself, as game loops and `RunLoop.current.run(mode:
// before:)` loops do: CFRunLoopRunInMode(default, 0, true) around a version-0 source that
// re-signals itself, so every pump handles one callout and returns. Between two pumps it runs its
// own code, and twice that code computes for 400 ms in pumpedFixtureComputeBetweenPumps(): while
// it does, the loop services nothing. Each computation's measured length (its own clock) is
// printed as `computed-ns=<ns>`, then `pumps=<n>` at the end; it exits 0.
//
// `lagmon-pumped-fixture nested` runs nested loops from the main run loop instead. A timer's
// callout runs the loop for 400 ms in a private mode (one no common mode includes): meanwhile the
// main run loop's common modes are serviced by nothing. Then a main-queue block runs the loop for
// 400 ms in the default mode, where it sleeps: its passes are the main run loop's. Prints
// `private-ns=<ns>` and `nested-default-ns=<ns>` (each nested run's length) and exits 0.
import CoreFoundation
import Foundation

func monotonicNs() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Spins until `milliseconds` have passed on the monotonic clock; returns how long it took.
@inline(never)
func pumpedFixtureComputeBetweenPumps(milliseconds: UInt64) -> UInt64 {
    let start = monotonicNs()
    var spins: UInt64 = 0
    while monotonicNs() - start < milliseconds * 1_000_000 { spins &+= 1 }
    return monotonicNs() - start
}

final class Pumps: @unchecked Sendable {
    var count = 0
    var source: CFRunLoopSource?
}
let pumps = Pumps()
var context = CFRunLoopSourceContext()
context.info = Unmanaged.passUnretained(pumps).toOpaque()
context.perform = { info in
    guard let info else { return }
    let pumps = Unmanaged<Pumps>.fromOpaque(info).takeUnretainedValue()
    pumps.count += 1
    CFRunLoopSourceSignal(pumps.source)
}
pumps.source = CFRunLoopSourceCreate(nil, 0, &context)
CFRunLoopAddSource(CFRunLoopGetMain(), pumps.source, kCFRunLoopDefaultMode)
CFRunLoopSourceSignal(pumps.source)

/// Pumps the loop `count` times (each pump runs the source's callout once).
func pump(_ count: Int) {
    for _ in 0..<count { _ = CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true) }
}

/// Runs the main loop in `mode` for 400 ms from inside a callout; returns how long it took.
func runNested(_ mode: CFRunLoopMode) -> UInt64 {
    let start = monotonicNs()
    _ = CFRunLoopRunInMode(mode, 0.4, false)
    return monotonicNs() - start
}

if CommandLine.arguments.dropFirst().first == "nested" {
    // A version-0 source never signalled keeps each mode from being empty (an empty mode's run
    // returns at once).
    let privateMode: CFRunLoopMode = CFStringCreateWithCString(
        nil, "lagmon.fixture.private", CFStringBuiltInEncodings.UTF8.rawValue)
    var idle = CFRunLoopSourceContext()
    let idleSource = CFRunLoopSourceCreate(nil, 0, &idle)
    CFRunLoopAddSource(CFRunLoopGetMain(), idleSource, privateMode)
    CFRunLoopAddSource(CFRunLoopGetMain(), idleSource, kCFRunLoopDefaultMode)
    CFRunLoopRemoveSource(CFRunLoopGetMain(), pumps.source, kCFRunLoopDefaultMode)
    let timer = CFRunLoopTimerCreateWithHandler(nil, CFAbsoluteTimeGetCurrent() + 0.05, 0, 0, 0) { _ in
        print("private-ns=\(runNested(privateMode))")
        DispatchQueue.main.async {
            print("nested-default-ns=\(runNested(kCFRunLoopDefaultMode))")
            CFRunLoopStop(CFRunLoopGetMain())
        }
    }
    CFRunLoopAddTimer(CFRunLoopGetMain(), timer, kCFRunLoopDefaultMode)
    CFRunLoopRun()
    exit(0)
}

var lines: [String] = []
pump(2000)
for _ in 0..<2 {
    lines.append("computed-ns=\(pumpedFixtureComputeBetweenPumps(milliseconds: 400))")
    pump(2000)
}
lines.append("pumps=\(pumps.count)")
FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
exit(0)
