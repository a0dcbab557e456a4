import Glibc
import LagmonCore

/// One /proc file (`stat`, `schedstat`) of each thread of a process, kept open between passes
/// and read again with `pread` at offset 0 (the kernel regenerates the contents on each read):
/// one system call per thread and pass instead of a path lookup, open, read and close. At most
/// `maxOpen` stay open; threads beyond that are opened and closed per read. Used by one thread
/// at a time.
final class ThreadFiles {
    let pid: Int32
    let file: String
    let maxOpen: Int
    private var open: [Int32: Int32] = [:]
    private var buffer = [UInt8](repeating: 0, count: ProcFS.readLimit)

    init(pid: Int32, file: String, maxOpen: Int) {
        self.pid = pid
        self.file = file
        self.maxOpen = max(0, maxOpen)
    }

    deinit {
        closeAll()
    }

    /// Descriptors currently held.
    var openCount: Int { open.count }

    /// Thread `tid`'s file, parsed by `parse` (given the bytes read, in a buffer reused by the
    /// next read); nil when the thread is gone (or the text garbled).
    func read<Parsed>(tid: Int32, _ parse: (ArraySlice<UInt8>) -> Parsed?) -> Parsed? {
        if let descriptor = open[tid] {
            if let parsed = readAndParse(descriptor, parse) { return parsed }
            close(descriptor)
            open[tid] = nil
            return nil
        }
        let descriptor = ProcFS.taskPath(pid: pid, tid: tid, file).withCString { Glibc.open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        let parsed = readAndParse(descriptor, parse)
        if parsed != nil && open.count < maxOpen {
            open[tid] = descriptor
        } else {
            close(descriptor)
        }
        return parsed
    }

    /// Closes the files of threads not in `alive` (they exited).
    func forget(allBut alive: Set<Int32>) {
        for (tid, descriptor) in open where !alive.contains(tid) {
            close(descriptor)
            open[tid] = nil
        }
    }

    func closeAll() {
        open.values.forEach { close($0) }
        open.removeAll()
    }

    private func readAndParse<Parsed>(_ descriptor: Int32, _ parse: (ArraySlice<UInt8>) -> Parsed?) -> Parsed? {
        var count = 0
        repeat {
            count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        } while count < 0 && errno == EINTR
        guard count > 0 else { return nil }
        return parse(buffer[0..<count])
    }

    /// How many descriptors each of a sampler's two kinds of files may hold: a quarter of the
    /// soft limit each (raised first to the hard limit, at most 16384: lagmon's own limit, set
    /// after the target started), at most 4096.
    static func openBudget() -> Int {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        let wanted = min(limit.rlim_max, 16_384)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(min(limit.rlim_cur / 4, 4096))
    }
}
