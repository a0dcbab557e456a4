import Glibc
import LagmonCore

/// What `JVMAttach` needs to know of a JVM before it signals it, read from /proc.
struct JVMProcess {
    /// lagmon's pid for it.
    var pid: Int32
    /// The pid it knows itself by (the last NSpid), which names its attach files.
    var nsPid: Int32
    /// Its user (the owner of /proc/<pid>), who must own its socket.
    var uid: uid_t
    /// Whether it catches SIGQUIT (else SIGQUIT would end it: `-Xrs`).
    var catchesQuit: Bool
    /// Whether `-XX:+DisableAttachMechanism` is in its command line or `JAVA_TOOL_OPTIONS`.
    var attachDisabled: Bool
    /// Whether it shares lagmon's mount namespace.
    var sharesMountNamespace: Bool

    /// Process `pid`, nil when it is gone or its status is unreadable.
    static func read(pid: Int32) -> JVMProcess? {
        var owner = stat()
        guard stat("/proc/\(pid)", &owner) == 0, let status = ProcFS.readFile("/proc/\(pid)/status") else {
            return nil
        }
        let nsPid = ProcProcessText.statusNumbers("NSpid", in: status).last ?? pid
        let caught = ProcProcessText.statusMask("SigCgt", in: status) ?? 0
        let arguments = ProcFS.readFile("/proc/\(pid)/cmdline") ?? []
        let environment = ProcFS.readFile("/proc/\(pid)/environ") ?? []
        let disabled = [arguments, environment].contains { bytes in
            ProcProcessText.commandLine(bytes).contains { $0.contains("+DisableAttachMechanism") }
        }
        let namespace = { (pid: String) in try? ProcFS.readLink("/proc/\(pid)/ns/mnt").get() }
        return JVMProcess(
            pid: pid, nsPid: nsPid, uid: owner.st_uid, catchesQuit: caught & (1 << (UInt64(SIGQUIT) - 1)) != 0,
            attachDisabled: disabled, sharesMountNamespace: namespace("\(pid)") == namespace("self"))
    }

    /// Why lagmon must not send it SIGQUIT; nil when it may.
    var refusal: String? {
        if attachDisabled { return "it runs with -XX:+DisableAttachMechanism" }
        if !catchesQuit { return "it does not catch SIGQUIT (-Xrs), which would end it" }
        return nil
    }
}
