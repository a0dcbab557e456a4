/// What a process may do beyond its own user, from /proc: whether lagmon may sample it on the
/// target's word. lagmon usually runs as root and could ptrace anything, but it samples only
/// what the target's own user could trace for themselves (docs/design.md, Threat model): not an
/// image that gained privileges by exec (setuid, setgid, file capabilities: the kernel's
/// AT_SECURE), not one running with mixed or raised ids or capabilities, not one that made
/// itself undumpable.
public struct ProcessPrivileges: Equatable, Sendable {
    /// Real, effective, saved and file-system user ids (`Uid:` of /proc/PID/status).
    public var uids: [UInt32]
    /// The same for groups (`Gid:`).
    public var gids: [UInt32]
    /// Permitted capabilities (`CapPrm:`, a hex mask).
    public var permittedCapabilities: UInt64
    /// AT_SECURE of the image's auxiliary vector (/proc/PID/auxv): set by the kernel when the exec
    /// changed credentials; nil when the vector could not be read.
    public var secureExec: Bool?
    /// The owner of /proc/PID: the kernel makes it root when the process is not dumpable (a
    /// setuid exec, `prctl(PR_SET_DUMPABLE, 0)`).
    public var procOwnerUid: UInt32

    public init(uids: [UInt32], gids: [UInt32], permittedCapabilities: UInt64, secureExec: Bool?, procOwnerUid: UInt32)
    {
        self.uids = uids
        self.gids = gids
        self.permittedCapabilities = permittedCapabilities
        self.secureExec = secureExec
        self.procOwnerUid = procOwnerUid
    }

    /// Parses /proc/PID/status (its `Uid:`, `Gid:` and `CapPrm:` lines) and /proc/PID/auxv; nil
    /// when a line is missing or malformed.
    public static func parse(status: [UInt8], auxv: [UInt8]?, procOwnerUid: UInt32) -> ProcessPrivileges? {
        var uids: [UInt32]?
        var gids: [UInt32]?
        var capabilities: UInt64?
        for line in status.split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            let fields = text.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst()
            if text.hasPrefix("Uid:") { uids = ids(fields) }
            if text.hasPrefix("Gid:") { gids = ids(fields) }
            if text.hasPrefix("CapPrm:"), let mask = fields.first { capabilities = UInt64(mask, radix: 16) }
        }
        guard let uids, let gids, let capabilities else { return nil }
        return ProcessPrivileges(
            uids: uids, gids: gids, permittedCapabilities: capabilities, secureExec: auxv.flatMap(secureExec),
            procOwnerUid: procOwnerUid)
    }

    /// Why the target's own user could not trace this process, in a few words; nil when it could.
    public var refusal: String? {
        if secureExec == true { return "gained privileges by exec (setuid, setgid or file capabilities)" }
        guard let user = uids.first, let group = gids.first else { return "has no readable credentials" }
        if uids.contains(where: { $0 != user }) { return "runs with mixed user ids (\(idList(uids)))" }
        if gids.contains(where: { $0 != group }) { return "runs with mixed group ids (\(idList(gids)))" }
        if user != 0 && permittedCapabilities != 0 { return "holds capabilities its user does not" }
        if user != 0 && procOwnerUid != user { return "is not dumpable" }
        return nil
    }

    private func idList(_ ids: [UInt32]) -> String { ids.map(String.init).joined(separator: " ") }

    private static func ids(_ fields: ArraySlice<Substring>) -> [UInt32]? {
        let values = fields.compactMap { UInt32($0) }
        return values.count == 4 && fields.count == 4 ? values : nil
    }

    /// AT_SECURE (23) in an auxiliary vector of 64-bit (type, value) pairs; nil when it has none.
    static func secureExec(_ auxv: [UInt8]) -> Bool? {
        var offset = 0
        while offset + 16 <= auxv.count {
            let type = word(auxv, at: offset)
            let value = word(auxv, at: offset + 8)
            if type == 0 { return nil }
            if type == 23 { return value != 0 }
            offset += 16
        }
        return nil
    }

    private static func word(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }
}
