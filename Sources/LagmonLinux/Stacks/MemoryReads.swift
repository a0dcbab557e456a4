/// The sampler's reads of target memory, each on a `MemoryReadWorker` within its bounds: the
/// worker in use (created at the first read), and the processes whose memory could not be read
/// in time, with the worker still holding that read: nothing of theirs is read again (nor their
/// unwinder or frame reader touched) until it returned.
struct MemoryReads {
    private var worker: MemoryReadWorker?
    private var unreadable: [Int32: MemoryReadWorker] = [:]

    /// Whether process `pid`'s memory may be read: not while a read of it that overran its bound
    /// is still under way.
    mutating func readable(pid: Int32) -> Bool {
        guard let stuck = unreadable[pid] else { return true }
        guard !stuck.stuck else { return false }
        stuck.stop()
        unreadable.removeValue(forKey: pid)
        return true
    }

    /// Whether a read of process `pid`'s memory overran its bound and has not returned.
    func isStuck(pid: Int32) -> Bool { unreadable[pid]?.stuck == true }

    /// Runs `body`, which reads process `pid`'s memory, on the memory worker within its bounds
    /// (`MemoryReadWorker`); nil when it overran them: the process is then unreadable until that
    /// read returns, and `body`'s captures must not be used before.
    mutating func bounded<T>(pid: Int32, _ body: @escaping () -> T) -> T? {
        guard readable(pid: pid) else { return nil }
        if worker == nil { worker = try? MemoryReadWorker() }
        guard let worker else { return nil }
        if let value = worker.perform(body) { return value }
        if worker.stuck {
            unreadable[pid] = worker
            self.worker = nil
        }
        return nil
    }

    /// Stops the memory workers; `servedFiles` lets go of the file copies abandoned reads held.
    func stop(servedFiles: ServedFileCopier) {
        worker?.stop()
        servedFiles.reapAbandoned()
        for stuck in unreadable.values { stuck.stop() }
    }
}
