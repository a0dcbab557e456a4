import CoreFoundation
import Foundation

/// Drives one scenario on the main run loop, then exits.
final class DemoRun: @unchecked Sendable {
    let scenario: Scenario
    let rows: Int
    let seconds: Double
    let log: TruthLog
    let exitStatus: Int32
    let many: (count: Int, lengthNs: UInt64)
    let threads: Int
    private var store: ImageStore?

    init(
        scenario: Scenario, rows: Int, seconds: Double, log: TruthLog, exitStatus: Int32,
        many: (count: Int, lengthNs: UInt64) = (1000, 2_000_000), threads: Int = 100
    ) {
        self.many = many
        self.threads = threads
        self.scenario = scenario
        self.exitStatus = exitStatus
        self.rows = rows
        self.seconds = seconds
        self.log = log
    }

    /// Schedules the scenario; it runs once the main run loop does (and, when
    /// `waitingForInput`, once a line arrived on stdin).
    func start(waitingForInput: Bool = false) {
        announce("pid \(getpid()) scenario \(scenario.rawValue)")
        do {
            store = try ImageStore(rows: rows)
        } catch {
            announce("cannot write images: \(error)")
            Foundation.exit(1)
        }
        guard !waitingForInput else {
            announce("waiting for a line on stdin")
            Thread { [self] in
                _ = readLine()
                performOnMainLoop { [self] in begin() }
            }.start()
            return
        }
        // Begin once the loop has slept once, like an app reacting to its first event (the
        // preload probe attaches at the loop's first wait; work before it is not observed).
        _ = Timer.scheduledTimer(withTimeInterval: 0.01, repeats: false) { [self] _ in begin() }
    }

    private func begin() {
        guard let store else { return }
        switch scenario {
        case .naive: ImageListController(store: store, log: log, loader: .naive).scroll(passes: 1, then: finish)
        case .cached:
            ImageListController(store: store, log: log, loader: .cached(ThumbnailCache())).scroll(
                passes: 3, then: finish)
        case .async: AsyncImageList(store: store, log: log).run(then: finish)
        case .batched: BatchedImageList(store: store, log: log).run(then: finish)
        case .lock: LockContention(log: log).run(then: finish)
        case .io: SlowPipeRead(log: log).run(then: finish)
        case .crash: FaultScenarios(store: store).crashDuringStall()
        case .hang: FaultScenarios(store: store).hangUntilKilled()
        case .interruptible: FaultScenarios(store: store).stallUntilInterrupted(then: finish)
        case .idle: IdleLoop().run(seconds: seconds, then: finish)
        case .spin: CPUBurner().run(seconds: seconds, then: finish)
        case .noloop: finish()  // handled before any run loop starts
        case .many: ManyStalls(count: many.count, lengthNs: many.lengthNs).run(then: finish)
        case .threads:
            SleepingThreads.start(count: threads)
            IdleLoop().run(seconds: seconds, then: finish)
        }
    }

    private func finish() {
        store?.remove()
        log.save()
        announce("done")
        CFRunLoopStop(CFRunLoopGetMain())
        exit(exitStatus)
    }
}
