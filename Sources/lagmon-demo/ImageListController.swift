import Foundation

/// A list scrolled one row per frame (a 16 ms timer); each shown row needs its thumbnail.
final class ImageListController: @unchecked Sendable {
    /// How thumbnails are obtained.
    enum Loader {
        /// Read and decode on the main thread, every time.
        case naive
        /// Memory cache, then disk cache of decoded pixels, then read and decode.
        case cached(ThumbnailCache)
    }

    private let store: ImageStore
    private let log: TruthLog
    private let loader: Loader
    private var timer: Timer?
    private var shown = 0

    init(store: ImageStore, log: TruthLog, loader: Loader) {
        self.store = store
        self.log = log
        self.loader = loader
    }

    /// Scrolls through all rows `passes` times (down, up, down…), then calls `done`.
    func scroll(passes: Int, then done: @escaping @Sendable () -> Void) {
        let total = passes * store.rows
        timer = Timer.scheduledTimer(withTimeInterval: 0.016, repeats: true) { [self] timer in
            guard shown < total else {
                timer.invalidate()
                done()
                return
            }
            let pass = shown / store.rows
            let index = shown % store.rows
            showRow(pass % 2 == 0 ? index : store.rows - 1 - index)
            shown += 1
        }
    }

    @inline(never)
    func showRow(_ row: Int) {
        let thumbnail = thumbnail(row: row)
        announce("row \(row) shown (checksum \(thumbnail.checksum % 1000))")
    }

    private func thumbnail(row: Int) -> Thumbnail {
        switch loader {
        case .naive:
            return log.stall("decodeImage") { loadImage(row: row) }
        case .cached(let cache):
            if let hit = cache.memory[row] { return hit }
            if let file = cache.disk[row], let data = try? Data(contentsOf: file) {
                let thumbnail = Thumbnail(row: row, checksum: UInt64(data.count))
                cache.memory[row] = thumbnail
                return thumbnail
            }
            let thumbnail = log.stall("decodeImage") { loadImage(row: row) }
            cache.memory[row] = thumbnail
            let file = store.directory.appendingPathComponent("decoded-\(row).raw")
            try? Data(count: 4096).write(to: file)
            cache.disk[row] = file
            return thumbnail
        }
    }

    /// Reads the row's image from disk and decodes it, on the calling (main) thread.
    @inline(never)
    func loadImage(row: Int) -> Thumbnail {
        let data = (try? Data(contentsOf: store.url(row: row))) ?? Data()
        return ImageDecoder.decodeImage(data, row: row, budgetNs: store.decodeNs(row: row))
    }
}
