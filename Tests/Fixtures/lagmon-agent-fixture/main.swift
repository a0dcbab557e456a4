// A Swift program that links LagmonAgent instead of relying on the LD_PRELOAD probe.
// It stalls twice for 150 ms in agentFixtureStall(), then exits 0. Without lagmon, install()
// returns false and the program runs the same.
import CoreFoundation
import Foundation
import LagmonAgent

@inline(never)
func agentFixtureStall(milliseconds: UInt32) {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    let deadline = Double(time.tv_sec) + Double(time.tv_nsec) / 1e9 + Double(milliseconds) / 1000
    var spins: UInt64 = 0
    repeat {
        spins &+= 1
        clock_gettime(CLOCK_MONOTONIC, &time)
    } while Double(time.tv_sec) + Double(time.tv_nsec) / 1e9 < deadline
}

let observed = LagmonAgent.install()
FileHandle.standardOutput.write(Data("agent-fixture: observed=\(observed)\n".utf8))
final class Counter: @unchecked Sendable { var ticks = 0 }
let counter = Counter()
_ = Timer.scheduledTimer(withTimeInterval: 0.02, repeats: true) { timer in
    counter.ticks += 1
    if counter.ticks == 2 || counter.ticks == 4 { agentFixtureStall(milliseconds: 150) }
    if counter.ticks == 6 {
        timer.invalidate()
        exit(0)
    }
}
RunLoop.main.run()
