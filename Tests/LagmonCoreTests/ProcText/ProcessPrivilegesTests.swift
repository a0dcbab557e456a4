import LagmonCore
import Testing

struct ProcessPrivilegesTests {
    static func status(uid: String, gid: String, capPrm: String = "0000000000000000") -> [UInt8] {
        Array("Name:\tx\nUid:\t\(uid)\nGid:\t\(gid)\nCapInh:\t0\nCapPrm:\t\(capPrm)\nCapEff:\t\(capPrm)\n".utf8)
    }

    static func auxv(_ pairs: [(UInt64, UInt64)]) -> [UInt8] {
        (pairs + [(0, 0)]).flatMap { pair in
            [pair.0, pair.1].flatMap { value in (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        }
    }

    @Test func aPlainProcessOfOneUserMayBeSampled() throws {
        let plain = try #require(
            ProcessPrivileges.parse(
                status: Self.status(uid: "65534\t65534\t65534\t65534", gid: "65534\t65534\t65534\t65534"),
                auxv: Self.auxv([(6, 4096), (23, 0)]), procOwnerUid: 65534))
        #expect(plain.refusal == nil)
        let root = try #require(
            ProcessPrivileges.parse(
                status: Self.status(uid: "0\t0\t0\t0", gid: "0\t0\t0\t0", capPrm: "000001ffffffffff"),
                auxv: Self.auxv([(23, 0)]), procOwnerUid: 0))
        #expect(root.refusal == nil)
    }

    @Test(arguments: [
        (
            "65534\t0\t0\t0", "65534\t65534\t65534\t65534", "0000000000000000", 1 as UInt64, 0 as UInt32,
            "gained privileges by exec"
        ),
        ("65534\t0\t0\t0", "65534\t65534\t65534\t65534", "0000000000000000", 0, 0, "mixed user ids (65534 0 0 0)"),
        ("1000\t1000\t1000\t1000", "1000\t0\t0\t0", "0000000000000000", 0, 1000, "mixed group ids"),
        ("1000\t1000\t1000\t1000", "1000\t1000\t1000\t1000", "0000000000002000", 0, 1000, "capabilities"),
        ("1000\t1000\t1000\t1000", "1000\t1000\t1000\t1000", "0000000000000000", 0, 0, "not dumpable"),
    ])
    func aProcessItsOwnUserCouldNotTraceIsRefused(
        uid: String, gid: String, caps: String, secure: UInt64, owner: UInt32, reason: String
    ) throws {
        let privileges = try #require(
            ProcessPrivileges.parse(
                status: Self.status(uid: uid, gid: gid, capPrm: caps), auxv: Self.auxv([(23, secure)]),
                procOwnerUid: owner))
        #expect(privileges.refusal?.contains(reason) == true, "\(privileges.refusal ?? "nil")")
    }

    @Test func malformedTextIsNoAnswer() {
        #expect(ProcessPrivileges.parse(status: Array("Uid:\t1\t2\n".utf8), auxv: nil, procOwnerUid: 0) == nil)
        #expect(ProcessPrivileges.parse(status: [], auxv: nil, procOwnerUid: 0) == nil)
        let truncatedAuxv = ProcessPrivileges.parse(
            status: Self.status(uid: "1\t1\t1\t1", gid: "1\t1\t1\t1"), auxv: [23, 0, 0], procOwnerUid: 1)
        #expect(truncatedAuxv?.secureExec == nil)
    }
}
