import CLagmonUnwind
import LagmonCore

extension StackSampler {
    /// Whether process `pid`'s memory may be read: not while a read of it that overran its bound
    /// is still under way.
    func memoryReadable(pid: Int32) -> Bool {
        guard let worker = unreadableMemory[pid] else { return true }
        guard !worker.stuck else { return false }
        worker.stop()
        unreadableMemory.removeValue(forKey: pid)
        return true
    }

    /// Runs `body`, which reads process `pid`'s memory, on the memory worker within its bounds
    /// (`MemoryReadWorker`); nil when it overran them: the process is then unreadable until that
    /// read returns, and `body`'s captures must not be used before.
    func boundedRead<T>(pid: Int32, _ body: @escaping () -> T) -> T? {
        guard memoryReadable(pid: pid) else { return nil }
        if memoryWorker == nil { memoryWorker = try? MemoryReadWorker() }
        guard let worker = memoryWorker else { return nil }
        if let value = worker.perform(body) { return value }
        if worker.stuck {
            unreadableMemory[pid] = worker
            memoryWorker = nil
        }
        return nil
    }

    /// Stops the memory workers and frees the unwinders no abandoned read may still be using.
    func stopMemoryReads() {
        memoryWorker?.stop()
        unwindImages.servedFiles.reapAbandoned()
        for worker in unreadableMemory.values { worker.stop() }
        for (pid, unwinder) in unwinders where unreadableMemory[pid]?.stuck != true {
            lagmon_unwinder_destroy(unwinder)
        }
    }
}
