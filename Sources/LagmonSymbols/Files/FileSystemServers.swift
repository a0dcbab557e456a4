import LagmonCore
import Synchronization

/// Which devices hold file systems that another process or a network serves (FUSE, NFS, SMB…:
/// `MountInfoParser.isServedByAnotherProcess`), known from /proc/<pid>/mountinfo of the process
/// that maps a file, and lagmon's own, without touching the file: opening or reading such a file
/// can wait for ever on a daemon that does not answer, so lagmon reads those only through a
/// bounded worker (`MappedFile.copy`), never on a thread that must not block.
///
/// A device that neither table lists (a container's backing disk, say) is taken as local. The
/// tables are read again, at most once a second per process, when a device is not in them.
public enum FileSystemServers {
    /// What one process's mountinfo said.
    private struct Table {
        var devices: Set<UInt64> = []
        var served: Set<UInt64> = []
        var readAtNs: UInt64 = 0
    }

    /// Tables by process; 0 is lagmon's own.
    private static let tables = Mutex<[Int32: Table]>([:])
    private static let rereadNs: UInt64 = 1_000_000_000
    /// The most processes whose tables are kept (oldest dropped beyond).
    private static let tableLimit = 256

    /// Whether the file system on `device` (a `MemoryMapping.device`) is served by another
    /// process or a network, as `pid`'s mounts or lagmon's say.
    public static func serveRemotely(device: UInt64, pid: Int32?) -> Bool {
        guard device != 0 else { return false }
        if let pid, pid > 0, lookUp(device, in: pid) == true { return true }
        return lookUp(device, in: 0) == true
    }

    /// What `pid`'s table says of `device`; nil when it does not list it.
    private static func lookUp(_ device: UInt64, in pid: Int32) -> Bool? {
        let now = SymbolizerClock.nowNs()
        let cached = tables.withLock { $0[pid] }
        if let cached, cached.devices.contains(device) || now &- cached.readAtNs < rereadNs {
            return cached.devices.contains(device) ? cached.served.contains(device) : nil
        }
        let path = pid == 0 ? "/proc/self/mountinfo" : "/proc/\(pid)/mountinfo"
        var table = Table(readAtNs: now)
        for mount in MountInfoParser.parse(ProcSelfMaps.text(path)) {
            table.devices.insert(mount.device)
            if MountInfoParser.isServedByAnotherProcess(mount.fileSystemType) { table.served.insert(mount.device) }
        }
        tables.withLock { tables in
            if tables.count >= tableLimit, tables[pid] == nil,
                let oldest = tables.min(by: { $0.value.readAtNs < $1.value.readAtNs })?.key
            {
                tables.removeValue(forKey: oldest)
            }
            tables[pid] = table
        }
        return table.devices.contains(device) ? table.served.contains(device) : nil
    }
}
