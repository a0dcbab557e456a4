import Glibc
import Testing

@testable import LagmonLinux

/// A stop inside a wait call is a wait only when the stop interrupted the sleep: a call that had
/// returned (timed out, or events came) while the thread waited for a CPU is over.
struct SyscallFinishedTests {
    static func registers(call: Int64, result: Int64) -> user_regs_struct {
        var registers = user_regs_struct()
        registers.orig_rax = UInt64(bitPattern: call)
        registers.rax = UInt64(bitPattern: result)
        return registers
    }

    @Test func anInterruptedSleepIsNotFinishedAReturnedCallIs() {
        let select: Int64 = 23
        for interrupted: Int64 in [-4, -512, -513, -514, -516] {
            #expect(!Self.registers(call: select, result: interrupted).syscallFinished, "\(interrupted)")
        }
        for returned: Int64 in [0, 1, 7, -9, -22] {
            #expect(Self.registers(call: select, result: returned).syscallFinished, "\(returned)")
        }
        #expect(Self.registers(call: select, result: 0).syscallNumber == 23)
    }
}
