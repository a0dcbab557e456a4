import CoreFoundation
import Foundation

/// CLOCK_MONOTONIC in nanoseconds: the clock lagmon reports on, so the demo's truth compares.
func monotonicNs() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Prints one progress line on stdout (tests follow the demo through these lines).
func announce(_ line: String) {
    FileHandle.standardOutput.write(Data("lagmon-demo: \(line)\n".utf8))
}

/// Runs `work` on the main run loop's next iteration. CFRunLoopPerformBlock alone does not wake
/// a sleeping loop, so wake it.
func performOnMainLoop(_ work: @escaping @Sendable () -> Void) {
    RunLoop.main.perform(work)
    CFRunLoopWakeUp(CFRunLoopGetMain())
}

/// prctl(PR_SET_DUMPABLE, 0). prctl is variadic in C, which Swift cannot call; its arguments are
/// all integers, so calling it through a fixed five-integer signature is the same call.
func makeNotDumpable() {
    typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
    guard let symbol = dlsym(nil, "prctl") else { return }
    let prSetDumpable: Int32 = 4
    _ = unsafeBitCast(symbol, to: Prctl.self)(prSetDumpable, 0, 0, 0, 0)
}

/// Names the calling thread (its /proc comm, what lagmon shows), at once. Foundation's
/// `Thread.current.name` setter alone left it unnamed once: on a loaded machine the lock demo's
/// writer held its lock for 300 ms still named `lagmon-demo` (the setter compares the `Thread`'s
/// pthread, which its creator stores after starting it).
func nameCurrentThread(_ name: String) {
    Thread.current.name = name
    // pthread_setname_np is not in Swift's Glibc module; it writes this file too.
    guard let comm = fopen("/proc/thread-self/comm", "w") else { return }
    fputs(String(name.prefix(15)), comm)
    fclose(comm)
}
