// A job-heavy Swift program for instruction counts: N `await Task.yield()` in a detached task on
// the cooperative pool, while the main thread waits on a semaphore. It has a synchronous main on
// purpose: an async main parks its main thread in dispatch_main's sigsuspend, which valgrind
// 3.19 (Debian 12) does not survive, so `make bench` counts the per-job path's instructions here
// with callgrind (scripts/bench, row swiftJobInstructions), alone and under lagmon run.
// (scripts/bench builds it with `swiftc -O`; it is no target of Package.swift.)
//
//   lagmon-swift-yields N
import Dispatch
import Glibc

let count = CommandLine.arguments.count == 2 ? Int(CommandLine.arguments[1]) ?? 0 : 0
guard count > 0 else {
    print("usage: lagmon-swift-yields N")
    exit(2)
}
let finished = DispatchSemaphore(value: 0)
Task.detached {
    for _ in 0..<count { await Task.yield() }
    finished.signal()
}
finished.wait()
print("yields=\(count)")
