import Glibc
import LagmonCore

extension ProcFS {
    /// Why process `pid` must not be sampled on the target's word (`ProcessPrivileges.refusal`),
    /// as one line naming the process and its program; nil when its own user could trace it.
    /// Credentials that cannot be read refuse too: a process lagmon cannot vouch for is not
    /// sampled.
    public static func samplingRefusal(pid: Int32) -> String? {
        var owner = stat()
        guard stat("/proc/\(pid)", &owner) == 0, let status = readFile("/proc/\(pid)/status") else {
            return nil  // gone: there is nothing left to sample
        }
        let auxv = readFile("/proc/\(pid)/auxv")
        let privileges = ProcessPrivileges.parse(status: status, auxv: auxv, procOwnerUid: owner.st_uid)
        let refusal =
            privileges?.refusal(tracerUid: getuid(), tracerCapabilities: ownPermittedCapabilities)
            ?? (privileges == nil ? "has no readable credentials" : nil)
        guard let refusal else {
            return nil
        }
        return "pid \(pid) (\(program(pid: pid))) \(refusal): not sampled"
    }

    /// lagmon's own permitted capabilities, read once (they do not change while it runs; the
    /// sampler asks before every sample).
    static let ownPermittedCapabilities: UInt64 =
        readFile("/proc/self/status").flatMap {
            ProcessPrivileges.parse(status: $0, auxv: nil, procOwnerUid: getuid())?.permittedCapabilities
        } ?? 0

    /// The program a process runs (/proc/PID/exe; without CAP_SYS_PTRACE an undumpable process's
    /// exe and argv are unreadable, then its comm), printable; `?` when none can be read.
    static func program(pid: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let length = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        var path = length > 0 ? Array(buffer[..<length]) : []
        if path.isEmpty { path = Array((readFile("/proc/\(pid)/cmdline") ?? []).prefix { $0 != 0 }) }
        if path.isEmpty { path = Array((readFile("/proc/\(pid)/comm") ?? []).prefix { $0 != 10 }) }
        return path.isEmpty ? "?" : QuotedText.printable(String(decoding: path, as: UTF8.self), limit: 120)
    }
}
