import Foundation

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
