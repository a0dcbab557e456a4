import LagmonCore
import Testing

/// /proc/<pid>/status lines with several numbers (`NSpid`) or a hex mask (`SigCgt`), hostile ones
/// included.
struct ProcStatusFieldsTests {
    static let status = Array("Name:\tjava\nNSpid:\t4242\t7\nSigCgt:\t0000000181005ccf\nTgid:\t4242\n".utf8)

    @Test func nsPidListsEveryNamespacesPid() {
        #expect(ProcProcessText.statusNumbers("NSpid", in: Self.status) == [4242, 7])
        #expect(ProcProcessText.statusNumbers("Tgid", in: Self.status) == [4242])
        #expect(ProcProcessText.statusNumbers("Missing", in: Self.status) == [])
        #expect(ProcProcessText.statusNumbers("NSpid", in: Array("NSpid:\t12\tx\t7\n".utf8)) == [12])
        #expect(ProcProcessText.statusNumbers("NSpid", in: Array("NSpid:\t99999999999\n".utf8)) == [])
    }

    @Test func sigCgtIsAHexMask() throws {
        let mask = try #require(ProcProcessText.statusMask("SigCgt", in: Self.status))
        #expect(mask & (1 << 2) != 0)  // SIGQUIT (3) is caught
        #expect(ProcProcessText.statusMask("SigCgt", in: Array("SigCgt:\tzz\n".utf8)) == nil)
        #expect(ProcProcessText.statusMask("SigCgt", in: Array("SigCgt:\t00000000000000000\n".utf8)) == nil)
    }
}
