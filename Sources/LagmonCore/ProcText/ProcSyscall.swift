/// /proc/<pid>/task/<tid>/syscall: what a thread was doing in the kernel when read.
public enum ProcSyscall: Sendable, Equatable {
    /// On a CPU (the kernel cannot say more about a running thread).
    case running
    /// In the kernel but not in a system call (`-1 <sp> <pc>`): a page fault, an interrupt.
    case notInSyscall(stackPointer: UInt64, programCounter: UInt64)
    /// Blocked in system call `number` with its six argument registers.
    case inSyscall(number: Int, arguments: [UInt64], stackPointer: UInt64, programCounter: UInt64)

    private static let runningLine = Array("running\n".utf8)

    /// Parses the file's one line; nil when it is truncated (no final newline) or garbled.
    public static func parse(_ bytes: [UInt8]) -> ProcSyscall? {
        if bytes == runningLine { return .running }
        guard bytes.last == ProcText.newline else { return nil }
        let fields = bytes.dropLast().split(separator: ProcText.space, omittingEmptySubsequences: false)
        guard let number = fields.first.flatMap(ProcText.signedDecimal) else { return nil }
        let registers = fields.dropFirst().map(ProcText.hexadecimal)
        guard registers.allSatisfy({ $0 != nil }) else { return nil }
        let values = registers.compactMap { $0 }
        switch (number < 0, values.count) {
        case (true, 2):
            return .notInSyscall(stackPointer: values[0], programCounter: values[1])
        case (false, 8):
            return .inSyscall(
                number: Int(number), arguments: Array(values[0..<6]), stackPointer: values[6], programCounter: values[7]
            )
        default:
            return nil
        }
    }
}
