import Testing

@testable import LagmonCore

/// /proc/<pid>/task/<tid>/syscall in its three shapes, and the x86_64 call table.
struct ProcSyscallTests {
    /// `cat` reading: read(3, 0x7f0dd780d000, 0x20000).
    static let readLine = Array(
        "0 0x3 0x7f0dd780d000 0x20000 0x7f0dd78a0b60 0xffffffff 0x0 0x7ffd42257c58 0x7f0dd79892ad\n".utf8)

    @Test func parsesABlockedCall() {
        #expect(
            ProcSyscall.parse(Self.readLine)
                == .inSyscall(
                    number: 0, arguments: [3, 0x7f0d_d780_d000, 0x20000, 0x7f0d_d78a_0b60, 0xffff_ffff, 0],
                    stackPointer: 0x7ffd_4225_7c58, programCounter: 0x7f0d_d798_92ad))
    }

    @Test func parsesRunningAndNotInASyscall() {
        #expect(ProcSyscall.parse(Array("running\n".utf8)) == .running)
        #expect(
            ProcSyscall.parse(Array("-1 0x7ffd42257c58 0x55d0c0de\n".utf8))
                == .notInSyscall(stackPointer: 0x7ffd_4225_7c58, programCounter: 0x55d0_c0de))
    }

    @Test func extremeValuesParse() {
        let line = "2147483647 0xffffffffffffffff 0x0 0x0 0x0 0x0 0xFFFFFFFFFFFFFFFF 0x0000000000000001 0x1\n"
        #expect(
            ProcSyscall.parse(Array(line.utf8))
                == .inSyscall(
                    number: 2_147_483_647, arguments: [.max, 0, 0, 0, 0, .max], stackPointer: 1, programCounter: 1))
        #expect(
            ProcSyscall.parse(Array("-2147483648 0x1 0x2\n".utf8)) == .notInSyscall(stackPointer: 1, programCounter: 2))
    }

    @Test(arguments: [Array("running\n".utf8), Array("-1 0x7ffd42257c58 0x55d0c0de\n".utf8), readLine])
    func everyTruncationIsRefused(line: [UInt8]) {
        for length in 0..<line.count {
            #expect(ProcSyscall.parse(Array(line.prefix(length))) == nil, "prefix of \(length) bytes")
        }
    }

    static let garbled: [String] = [
        "", "\n", "running", "Running\n", "running \n", " running\n", "running\nrunning\n", "-1\n", "-1 0x1\n",
        "-1 0x1 0x2 0x3\n", "-1 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n", "0 0x1 0x2 0x3 0x4 0x5 0x6 0x7\n",
        "0 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8 0x9\n", "0 1 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n",
        "0 0x 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n", "0 0xg 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n",
        "0 0x10000000000000000 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n", "0 -0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n",
        "0  0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n", "0x0 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n",
        "2147483648 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n", "-2147483649 0x1 0x2\n", "- 0x1 0x2\n", "--1 0x1 0x2\n",
        "x 0x1 0x2\n",
    ]

    @Test(arguments: garbled)
    func garbledTextIsRefused(text: String) {
        #expect(ProcSyscall.parse(Array(text.utf8)) == nil)
    }

    @Test func binaryGarbageNeverCrashes() {
        var generator = SplitMix(seed: 7)
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 120)
            let alphabet = Array("0123456789abcdefx- \n".utf8) + [0xFF]
            let bytes = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            _ = ProcSyscall.parse(bytes)
        }
    }

    // MARK: The table

    static let required: [(Int, String)] = [
        (0, "read"), (1, "write"), (2, "open"), (3, "close"), (4, "stat"), (5, "fstat"), (7, "poll"), (8, "lseek"),
        (9, "mmap"), (16, "ioctl"), (17, "pread64"), (18, "pwrite64"), (19, "readv"), (20, "writev"),
        (21, "access"), (22, "pipe"), (23, "select"), (24, "sched_yield"), (26, "msync"), (35, "nanosleep"),
        (34, "pause"), (39, "getpid"), (40, "sendfile"), (41, "socket"), (42, "connect"), (43, "accept"),
        (44, "sendto"), (45, "recvfrom"), (46, "sendmsg"), (47, "recvmsg"), (48, "shutdown"), (49, "bind"),
        (50, "listen"), (61, "wait4"), (62, "kill"), (72, "fcntl"), (73, "flock"), (74, "fsync"), (75, "fdatasync"),
        (78, "getdents"), (217, "getdents64"), (257, "openat"), (202, "futex"), (232, "epoll_wait"),
        (233, "epoll_ctl"), (281, "epoll_pwait"), (441, "epoll_pwait2"), (271, "ppoll"), (270, "pselect6"),
        (230, "clock_nanosleep"), (288, "accept4"), (299, "recvmmsg"), (307, "sendmmsg"), (208, "io_getevents"),
        (426, "io_uring_enter"), (247, "waitid"), (275, "splice"), (276, "tee"),
    ]

    @Test(arguments: required)
    func namesTheCommonCalls(number: Int, name: String) {
        #expect(SyscallTable.name(number) == name)
    }

    @Test(arguments: [335, 1_000, -1, Int.max])
    func unknownNumbersAreNamedByNumber(number: Int) {
        #expect(SyscallTable.name(number) == "syscall_\(number)")
        #expect(!SyscallTable.takesDescriptor(number))
        #expect(!SyscallTable.isSleep(number))
        #expect(!SyscallTable.isLockWait(number))
    }

    @Test func namesAreUnique() {
        #expect(Set(SyscallTable.names.values).count == SyscallTable.names.count)
    }

    static let descriptorCalls = [
        "read", "write", "pread64", "pwrite64", "readv", "writev", "fsync", "fdatasync", "ioctl", "fcntl", "flock",
        "connect", "accept", "accept4", "recvfrom", "recvmsg", "recvmmsg", "sendto", "sendmsg", "sendmmsg",
        "epoll_wait", "epoll_pwait", "epoll_pwait2", "getdents64", "lseek", "sendfile", "splice", "tee",
    ]
    static let otherCalls = [
        "open", "openat", "stat", "poll", "ppoll", "select", "pselect6", "mmap", "futex", "nanosleep",
        "clock_nanosleep", "pause", "io_getevents", "wait4", "waitid", "kill", "socket", "pipe", "getpid",
    ]

    static func number(_ name: String) -> Int {
        SyscallTable.names.first { $0.value == name }?.key ?? -1
    }

    @Test func descriptorCallsAreThoseWhoseFirstArgumentIsADescriptor() {
        for name in Self.descriptorCalls { #expect(SyscallTable.takesDescriptor(Self.number(name)), "\(name)") }
        for name in Self.otherCalls { #expect(!SyscallTable.takesDescriptor(Self.number(name)), "\(name)") }
    }

    @Test func sleepsAndLockWaits() {
        let sleeps = SyscallTable.names.keys.filter(SyscallTable.isSleep).map(SyscallTable.name).sorted()
        #expect(sleeps == ["clock_nanosleep", "nanosleep", "pause"])
        let lockWaits = SyscallTable.names.keys.filter(SyscallTable.isLockWait).map(SyscallTable.name).sorted()
        #expect(lockWaits == ["futex", "futex_waitv"])
    }
}
