import CLagmonLinux
import Glibc
import LagmonCore

/// The stop window's work: the registers and the top of the stack, copied while the thread is
/// stopped (everything else waits until it resumed).
extension SamplerWorker {
    /// Registers and the top of the stack of the stopped thread.
    struct StackCopy {
        var registers: user_regs_struct
        /// When the registers were read (session clock): the thread was stopped by then.
        var stoppedNs: UInt64
        var start: UInt64
        var length: Int
        /// The stack mapping, read live beyond the copy.
        var live: (start: UInt64, end: UInt64)
        /// The bytes copied from `start` (`length` were asked for; fewer may have come).
        var bytes: [UInt8] = []
        /// Set when the process's memory could not be read in time (or a read of it is still
        /// under way): only the registers are known.
        var memoryUnreadable = false
    }

    /// What the memory worker read while the thread was stopped.
    struct StoppedRead {
        var bytes: [UInt8]
        var python: [CPythonFrameReader.RawFrame]
        var pythonNs: UInt64
    }

    /// The stack copy and Python frames of stopped thread `tid`, read on the memory worker; nil
    /// when that overran its bound.
    func readWhileStopped(_ copy: StackCopy, pid: Int32, tid: Int32, python: CPythonFrameReader?)
        -> StoppedRead?
    {
        memory.bounded(pid: pid) { () -> StoppedRead in Self.readStopped(copy, tid: tid, python) }
    }

    /// Copies the top of the stack and reads the Python frames of stopped thread `tid` (on the
    /// memory worker: touches only what it is given).
    static func readStopped(_ copy: StackCopy, tid: Int32, _ python: CPythonFrameReader?) -> StoppedRead {
        var bytes = [UInt8](repeating: 0, count: copy.length)
        let read = bytes.withUnsafeMutableBytes { buffer in
            lagmon_read_memory(pid_t(tid), copy.start, buffer.baseAddress, buffer.count)
        }
        bytes.removeLast(copy.length - max(0, read))
        let started = MonotonicClock.nowNs()
        let frames = python?.readFrames(tid: tid, fsBase: copy.registers.fs_base) ?? []
        return StoppedRead(bytes: bytes, python: frames, pythonNs: MonotonicClock.nowNs() - started)
    }

    /// The registers of the stopped thread and the stack range to copy. Runs while the thread is
    /// stopped: keep it short.
    func stopRegisters(tid: Int32) -> StackCopy? {
        guard let registers = threads.tracers[tid]?.registers() else { return nil }
        let stoppedNs = clock()
        // From the red zone below the stack pointer (bytes leaf functions may use) to the end
        // of the stack pointer's page, and at least `stackWindowBytes` past the stack pointer: the
        // frames that change once the thread runs (for most loops, the whole stack). Frames
        // further out are read live after it resumed; they stay put while it is stuck deeper.
        // Every page copied here costs pause time (process_vm_readv pins it).
        let start = registers.stackPointer &- user_regs_struct.redZoneBytes
        var end = max(
            (registers.stackPointer | 0xFFF) + 1, registers.stackPointer + UInt64(StackSampler.stackWindowBytes))
        var live: (UInt64, UInt64) = (0, 0)
        if let mapping = stackMappings[tid]?.mapping(containing: registers.stackPointer) {
            end = min(end, mapping.end)
            live = (mapping.start, mapping.end)
        }
        let wanted = min(Int(end - start), StackSampler.stackCopyBytes)
        return StackCopy(registers: registers, stoppedNs: stoppedNs, start: start, length: wanted, live: live)
    }
}
