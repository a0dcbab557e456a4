import CoreFoundation
import Foundation

/// A background thread kept alive by its own run loop (a port source keeps the loop from
/// returning), so work can be handed to it again and again without creating threads. Started
/// and stopped cleanly: `stop()` ends the loop and waits for the thread to finish.
final class KeepAliveWorker: Thread {
    private var runLoop: CFRunLoop?
    private let ready = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// Set on the worker thread itself, read by its loop.
    private final class StopFlag: @unchecked Sendable { var isSet = false }
    private let stopped = StopFlag()

    /// Starts the thread and waits until its run loop can take work.
    func startAndWait() {
        start()
        ready.wait()
    }

    override func main() {
        // Named from inside: Foundation on Linux names the kernel thread only this way.
        nameCurrentThread("decode-worker")
        runLoop = CFRunLoopGetCurrent()
        // An empty version-0 source keeps the loop from returning for lack of sources.
        var context = CFRunLoopSourceContext()
        let keepAlive = CFRunLoopSourceCreate(nil, 0, &context)
        CFRunLoopAddSource(CFRunLoopGetCurrent(), keepAlive, kCFRunLoopDefaultMode)
        ready.signal()
        while !stopped.isSet {
            _ = RunLoop.current.run(mode: .default, before: .distantFuture)
        }
        finished.signal()
    }

    /// Runs `work` on the worker thread.
    func perform(_ work: @escaping @Sendable () -> Void) {
        guard let runLoop else { return }
        CFRunLoopPerformBlock(runLoop, kCFRunLoopDefaultMode, work)
        CFRunLoopWakeUp(runLoop)
    }

    /// Ends the worker's run loop and waits for the thread to exit.
    func stop() {
        let flag = stopped
        perform {
            flag.isSet = true
            CFRunLoopStop(CFRunLoopGetCurrent())
        }
        finished.wait()
    }
}
