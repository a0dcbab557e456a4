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
        Thread.current.name = "decode-worker"
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

/// Decodes thumbnails on a keep-alive worker and applies them back on the main run loop.
final class AsyncImageList: @unchecked Sendable {
    private let store: ImageStore
    private let log: TruthLog
    private let worker = KeepAliveWorker()
    private var applied = 0

    init(store: ImageStore, log: TruthLog) {
        self.store = store
        self.log = log
    }

    func run(then done: @escaping @Sendable () -> Void) {
        worker.startAndWait()
        for row in 0..<store.rows {
            let url = store.url(row: row)
            let budget = store.decodeNs(row: row)
            worker.perform { [self] in
                let data = (try? Data(contentsOf: url)) ?? Data()
                let thumbnail = ImageDecoder.decodeImage(data, row: row, budgetNs: budget)
                performOnMainLoop { [self] in apply(thumbnail, done: done) }
            }
        }
    }

    private func apply(_ thumbnail: Thumbnail, done: @escaping @Sendable () -> Void) {
        announce("row \(thumbnail.row) shown (checksum \(thumbnail.checksum % 1000))")
        applied += 1
        if applied == store.rows {
            worker.stop()
            done()
        }
    }
}
