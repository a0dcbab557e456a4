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
    /// Bytes below the stack pointer a leaf function may use without moving it: the System V
    /// x86_64 ABI's red zone.
    static let redZoneBytes: UInt64 = 128
}
