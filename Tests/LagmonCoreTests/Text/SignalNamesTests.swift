import LagmonCore
import Testing

struct SignalNamesTests {
    @Test(
        arguments: [
            (Int32(1), "SIGHUP"), (2, "SIGINT"), (6, "SIGABRT"), (9, "SIGKILL"), (11, "SIGSEGV"), (13, "SIGPIPE"),
            (15, "SIGTERM"), (17, "SIGCHLD"), (31, "SIGSYS"),
        ] as [(Int32, String)])
    func linuxNumbersHaveTheirNames(number: Int32, name: String) {
        #expect(SignalNames.name(of: number) == name)
    }

    @Test(arguments: [Int32(0), 32, 34, 64, -1])
    func realTimeAndUnknownNumbersAreSpelledOut(number: Int32) {
        #expect(SignalNames.name(of: number) == "SIG\(number)")
    }
}
