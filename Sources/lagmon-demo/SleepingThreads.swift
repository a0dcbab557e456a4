import Foundation

/// Threads that only sleep, for measuring per-thread readers against many threads.
enum SleepingThreads {
    static func start(count: Int) {
        for index in 0..<count {
            let thread = Thread {
                nameCurrentThread("sleeper-\(index)")
                while true { sleep(3600) }
            }
            thread.stackSize = 64 * 1024
            thread.start()
        }
        announce("\(count) sleeping threads")
    }
}
