import Synchronization

/// The child processes lagmon starts for itself (the symbolizer tool, the file copier).
///
/// `lagmon run` reaps the target's orphans (it is their subreaper, docs/design/probe.md
/// "Following children"), so a child of lagmon is either the target, a descendant it adopted, or
/// one of these. The target may name any pid in the channel: lagmon must never watch, sample or
/// reap its own helper because the target said so. A helper is recorded before its pid is known
/// to anyone else, and forgotten once reaped.
public enum HelperProcesses {
    private static let pids = Mutex<Set<Int32>>([])

    /// Runs `spawn` (which starts a helper and returns its pid, or a value ≤ 0 on failure) and
    /// records the pid in the same critical section, so `contains` never misses a live helper.
    public static func start(_ spawn: () -> Int32) -> Int32 {
        pids.withLock { pids in
            let pid = spawn()
            if pid > 0 { pids.insert(pid) }
            return pid
        }
    }

    /// Forgets `pid`: the helper was reaped.
    public static func reaped(_ pid: Int32) {
        _ = pids.withLock { $0.remove(pid) }
    }

    /// Whether `pid` is a helper lagmon started and has not reaped yet.
    public static func contains(_ pid: Int32) -> Bool {
        pids.withLock { $0.contains(pid) }
    }
}
