// A job-heavy Swift program for instruction counts: N `await Task.yield()` in a detached task on
// the cooperative pool, while the main thread waits on a semaphore; or, with `main-actor`, N
// yields of a main-actor task, whose jobs libdispatch workers run (the main queue is handed to
// them when the main thread exits, as dispatchMain() does). It has no async main and never calls
// dispatchMain() on purpose: both park the main thread in sigsuspend, which valgrind 3.19
// (Debian 12) does not survive; pthread_exit is what dispatchMain() does without that trap. So
// `make bench` counts the per-job path's instructions here with callgrind (scripts/bench, row
// swiftJobInstructions), alone and under lagmon run.
// (scripts/bench builds it with `swiftc -O`; it is no target of Package.swift.)
//
//   lagmon-swift-yields N [main-actor]
import Dispatch
import Glibc

let arguments = CommandLine.arguments
let count = arguments.count >= 2 ? Int(arguments[1]) ?? 0 : 0
let mainActor = arguments.count == 3 && arguments[2] == "main-actor"
guard count > 0, arguments.count == 2 || mainActor else {
    print("usage: lagmon-swift-yields N [main-actor]")
    exit(2)
}
if mainActor {
    Task { @MainActor in
        for _ in 0..<count { await Task.yield() }
        print("yields=\(count)")
        exit(0)
    }
    pthread_exit(nil)
}
let finished = DispatchSemaphore(value: 0)
Task.detached {
    for _ in 0..<count { await Task.yield() }
    finished.signal()
}
finished.wait()
print("yields=\(count)")
