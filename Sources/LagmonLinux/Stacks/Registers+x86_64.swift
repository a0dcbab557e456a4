import Glibc

#if !arch(x86_64)
    #error(
        "lagmon supports Linux on x86_64 only (README); a port adds the architecture's registers in a file like this one"
    )
#endif

/// The x86_64 registers the sampler reads from a stopped thread (PTRACE_GETREGS).
extension user_regs_struct {
    /// The stack pointer (`rsp`).
    var stackPointer: UInt64 { rsp }
    /// The instruction pointer (`rip`): the executing instruction, the innermost frame.
    var instructionPointer: UInt64 { rip }
    /// The system call the thread was stopped in (`orig_rax`), nil when it was stopped in user
    /// space (the kernel sets `orig_rax` to -1 outside a call).
    var syscallNumber: Int? {
        let number = Int64(bitPattern: orig_rax)
        return number >= 0 && number <= Int64(Int32.max) ? Int(number) : nil
    }
    /// Whether the call in `syscallNumber` had already finished when the stop came: its result
    /// (`rax`) is not that of a sleep the stop interrupted (-EINTR, or the -ERESTART* codes,
    /// 512 to 516, with which the kernel restarts it). A wait call that finished is over: the
    /// thread was woken and only waited for a CPU to return from it.
    var syscallFinished: Bool {
        let result = Int64(bitPattern: rax)
        return result != -Int64(EINTR) && !(-516 ... -512).contains(result)
    }
    /// Bytes below the stack pointer a leaf function may use without moving it: the System V
    /// x86_64 ABI's red zone.
    static let redZoneBytes: UInt64 = 128
}
