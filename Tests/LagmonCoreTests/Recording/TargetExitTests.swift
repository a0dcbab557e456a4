import LagmonCore
import Testing

struct TargetExitTests {
    @Test(
        arguments: [
            (TargetExit.exited(0), Int32(0)), (.exited(1), 1), (.exited(255), 255), (.signaled(2), 130),
            (.signaled(9), 137), (.signaled(15), 143),
        ] as [(TargetExit, Int32)])
    func passThroughStatusIsTheCodeOr128PlusTheSignal(exit: TargetExit, status: Int32) {
        #expect(exit.passThroughStatus == status)
    }
}
