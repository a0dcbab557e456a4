import Foundation

/// A loop that only sleeps, woken by a 50 ms timer that does nothing heavy.
struct IdleLoop: Sendable {
    func run(seconds: Double, then done: @escaping @Sendable () -> Void) {
        announce("idle for \(seconds)s")
        let deadline = Date().addingTimeInterval(seconds)
        _ = Timer.scheduledTimer(withTimeInterval: 0.05, repeats: true) { timer in
            if Date() >= deadline {
                timer.invalidate()
                done()
            }
        }
    }
}
