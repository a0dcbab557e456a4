import CLagmonLinux
import Glibc
import LagmonCore
import LagmonSymbols

/// Copies into memory the files a target maps from a file system that another process or a
/// network serves (FUSE, NFS, SMB…: `FileSystemServers`), so that lagmon's own threads never
/// send a request there.
///
/// Such a request, once the server has read it, is waited out in the kernel: a server that never
/// answers keeps the thread that asked in state D for ever, and no signal, SIGKILL included, ends
/// the wait; the process cannot even finish exiting (it stays a zombie holding its descriptors, so
/// a pipe lagmon writes to never closes). So a child process makes each copy
/// (`lagmon_copy_file_in_child`, holding only the copy's descriptor) while lagmon waits for it
/// within bounds; a child that overruns them is killed and left behind (the kernel ends it when
/// the server answers or goes away) and its server is not asked again. The copy then serves the
/// unwinder and the symbolizer like the file itself.
final class ServedFileCopier {
    /// The largest file copied (the copy is memory).
    static let sizeLimit: UInt64 = 64 << 20
    /// How long a copy may sleep waiting for the server (neither on a CPU nor waiting for one:
    /// a loaded machine does not count), and how long it may take in all.
    static let sleepBoundNs: UInt64 = 500_000_000
    static let runBoundNs: UInt64 = 5_000_000_000

    /// Devices whose server let a copy overrun: none of their files is asked for again.
    private(set) var unansweringDevices: Set<UInt64> = []
    /// Children killed after overrunning, not yet reaped.
    private var abandoned: [pid_t] = []

    /// A copy in memory of the file `mapping` of process `pid` maps (through map_files, else its
    /// path inside the process's root, `root`); nil when it cannot be made safely (not a regular
    /// file, larger than `sizeLimit`, its server did not answer in time).
    func copy(pid: Int32, mapping: MemoryMapping, root: TargetFileSystem) -> MappedFile? {
        reapAbandoned()
        guard mapping.isFile, !unansweringDevices.contains(mapping.device) else { return nil }
        let memory = lagmon_memfd_create("lagmon-served-file", lagmon_mfd_cloexec())
        guard memory >= 0 else { return nil }
        let range = String(mapping.start, radix: 16) + "-" + String(mapping.end, radix: 16)
        let mapFile = "/proc/\(pid)/map_files/\(range)"
        let child = root.withRootDescriptor { rootDescriptor in
            // The path only below the process's root, never as lagmon's own root resolves it.
            let path = mapping.isDeleted || rootDescriptor < 0 ? nil : mapping.filePath.map(root.pathInRoot)
            return path.withOptionalCString { second in
                lagmon_copy_file_in_child(mapFile, rootDescriptor, second, mapping.inode, memory, Self.sizeLimit)
            }
        }
        guard child > 0 else {
            close(memory)
            return nil
        }
        guard let status = wait(for: child) else {
            kill(child, SIGKILL)
            abandoned.append(child)
            unansweringDevices.insert(mapping.device)
            close(memory)
            return nil
        }
        guard status == 0 else {
            close(memory)
            return nil
        }
        return MappedFile.adopting(memory)
    }

    /// Reaps the abandoned children that have ended since.
    func reapAbandoned() {
        abandoned.removeAll { child in
            var status: Int32 = 0
            return waitpid(child, &status, WNOHANG) != 0
        }
    }

    /// The child's exit code; nil when it overran the bounds (or did not exit normally).
    private func wait(for child: pid_t) -> Int32? {
        let startNs = MonotonicClock.nowNs()
        var pauseNs: UInt64 = 100_000
        while true {
            var status: Int32 = 0
            let result = waitpid(child, &status, WNOHANG)
            if result == child {
                // WIFEXITED / WEXITSTATUS, which Swift does not import.
                return status & 0x7f == 0 ? (status >> 8) & 0xff : nil
            }
            if result < 0 && errno != EINTR { return nil }
            let elapsedNs = MonotonicClock.nowNs() - startNs
            if elapsedNs >= Self.runBoundNs { return nil }
            if elapsedNs >= Self.sleepBoundNs,
                let schedstat = ProcFS.readFile("/proc/\(child)/schedstat").flatMap(ProcSchedstat.parse),
                elapsedNs > schedstat.onCPUNs &+ schedstat.runDelayNs,
                elapsedNs - (schedstat.onCPUNs &+ schedstat.runDelayNs) >= Self.sleepBoundNs
            {
                return nil
            }
            var pause = timespec(tv_sec: 0, tv_nsec: Int(pauseNs))
            nanosleep(&pause, nil)
            pauseNs = min(pauseNs * 2, 5_000_000)
        }
    }
}

extension Optional where Wrapped == String {
    /// Calls `body` with the string's C form, or NULL.
    fileprivate func withOptionalCString<Result>(_ body: (UnsafePointer<CChar>?) -> Result) -> Result {
        guard let self else { return body(nil) }
        return self.withCString { body($0) }
    }
}
