import CoreFoundation
import Foundation

/// Decodes on the main thread, but one short slice per run loop iteration, from a
/// before-waiting observer: the loop stays responsive, the list takes longer to fill.
final class BatchedImageList: @unchecked Sendable {
    /// Longest slice of decoding done in one iteration.
    static let sliceNs: UInt64 = 8_000_000

    private let store: ImageStore
    private let log: TruthLog
    private var tasks: [(row: Int, data: Data, remainingNs: UInt64)] = []
    private var observer: CFRunLoopObserver?

    init(store: ImageStore, log: TruthLog) {
        self.store = store
        self.log = log
    }

    func run(then done: @escaping @Sendable () -> Void) {
        for row in 0..<store.rows {
            let data = (try? Data(contentsOf: store.url(row: row))) ?? Data()
            tasks.append((row, data, store.decodeNs(row: row)))
        }
        let activities = CFRunLoopActivity.beforeWaiting.rawValue
        observer = CFRunLoopObserverCreateWithHandler(nil, activities, true, 0) { [self] observer, _ in
            runOneSlice(observer: observer, done: done)
        }
        CFRunLoopAddObserver(CFRunLoopGetMain(), observer, kCFRunLoopCommonModes)
        CFRunLoopWakeUp(CFRunLoopGetMain())
    }

    private func runOneSlice(observer: CFRunLoopObserver?, done: @escaping @Sendable () -> Void) {
        guard !tasks.isEmpty else {
            CFRunLoopObserverInvalidate(observer)
            done()
            return
        }
        let slice = min(Self.sliceNs, tasks[0].remainingNs)
        _ = ImageDecoder.decodeImage(tasks[0].data, row: tasks[0].row, budgetNs: slice)
        tasks[0].remainingNs -= slice
        if tasks[0].remainingNs == 0 {
            announce("row \(tasks[0].row) shown")
            tasks.removeFirst()
        }
        // Keep the loop turning while work remains: it must not sleep with tasks queued.
        CFRunLoopWakeUp(CFRunLoopGetMain())
    }
}
