import Glibc

/// lagmon's own CPU time and resident memory right now, for its metrics.
enum OwnUsage {
    static func now() -> (cpuNs: UInt64, rssBytes: UInt64) {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func ns(_ time: timeval) -> UInt64 { UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_usec) * 1_000 }
        return (ns(usage.ru_utime) + ns(usage.ru_stime), residentBytes())
    }

    /// The second field of /proc/self/statm (resident pages) times the page size.
    private static func residentBytes() -> UInt64 {
        guard let bytes = ProcFS.readFile("/proc/self/statm") else { return 0 }
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = UInt64(fields[1]) else { return 0 }
        return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
    }
}
