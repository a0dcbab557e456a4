// A run loop spinning as fast as it can: a version-0 source that re-signals itself from its
// own callback, so every loop pass runs one callback and never sleeps. Prints passes per
// second; the benchmark runs it with and without lagmon to measure the observer's cost.
import CoreFoundation
import Foundation

final class HotLoop: @unchecked Sendable {
    var passes = 0
    var deadlineNs: UInt64 = 0
    var source: CFRunLoopSource?
}

func monotonicNs() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

let seconds = CommandLine.arguments.count > 1 ? Double(CommandLine.arguments[1]) ?? 2 : 2
let loop = HotLoop()
var context = CFRunLoopSourceContext()
context.info = Unmanaged.passUnretained(loop).toOpaque()
context.perform = { info in
    let loop = Unmanaged<HotLoop>.fromOpaque(info!).takeUnretainedValue()
    loop.passes += 1
    if loop.passes & 1023 == 0 && monotonicNs() >= loop.deadlineNs {
        CFRunLoopStop(CFRunLoopGetMain())
        return
    }
    CFRunLoopSourceSignal(loop.source)
}
loop.source = CFRunLoopSourceCreate(nil, 0, &context)
CFRunLoopAddSource(CFRunLoopGetMain(), loop.source, kCFRunLoopCommonModes)
// Sleep once first, so the preload probe (installed from the loop's first wait) is in place
// before the measured spin starts.
_ = Timer.scheduledTimer(withTimeInterval: 0.05, repeats: false) { _ in
    let start = monotonicNs()
    loop.deadlineNs = start + UInt64(seconds * 1e9)
    CFRunLoopSourceSignal(loop.source)
    CFRunLoopRun()
    let elapsed = Double(monotonicNs() - start) / 1e9
    print("passes=\(loop.passes) seconds=\(elapsed) rate=\(Int(Double(loop.passes) / elapsed))")
    exit(0)
}
CFRunLoopRun()
