import CLagmonLinux
import CLagmonUnwind
import Glibc
import LagmonCore

/// After the pause: the copy unwound, its Python and interpreted Java frames named and its Swift
/// async callers read,
/// on the memory worker (all read the live process).
extension SamplerWorker {
    /// Each unwound frame's frame pointer and stack pointer registers, innermost first.
    struct FramePointers {
        var frame: [UInt64] = []
        var stack: [UInt64] = []
    }

    /// What the memory worker read after the pause.
    struct UnwoundStack {
        var addresses: [UInt64]
        var outcome: UnwindOutcome
        var interpreterFrames: [InterpreterFrame]
        /// HotSpot's interpreter frames and the methods they ran.
        var interpretedJava: [InterpretedJavaFrame] = []
        /// The Swift async callers of frame `asyncCallerIndex` (`AsyncCallerChain`).
        var asyncCallers: [UInt64] = []
        var asyncCallerIndex: Int?
    }

    /// The unwind of `copied`, the names of its Python frames and of the methods its HotSpot
    /// interpreter frames ran (`jvm`), and the Swift async callers of its async frame (with `map`,
    /// the process's), on the memory worker (all read the live process); nil when that overran
    /// its bound.
    func unwindAfterPause(
        _ copied: StackCopy, pid: Int32, map: ProcessMemoryMap?, python: CPythonFrameReader?,
        _ rawPython: [CPythonFrameReader.RawFrame], jvm: HotSpotFrameReader?
    ) -> UnwoundStack? {
        let unwinder = unwinder(pid: pid)
        return memory.bounded(pid: pid) { () -> UnwoundStack in
            let (addresses, framePointers, outcome) = Self.unwind(copied, unwinder: unwinder)
            var unwound = UnwoundStack(
                addresses: addresses, outcome: outcome, interpreterFrames: python?.resolve(rawPython) ?? [])
            if let jvm {
                let stack = HotSpotFrameReader.Stack(
                    start: copied.start, bytes: copied.bytes, liveStart: copied.live.start, liveEnd: copied.live.end)
                unwound.interpretedJava = jvm.frames(
                    addresses: addresses, framePointers: framePointers.frame, stackPointers: framePointers.stack,
                    stack: stack)
            }
            if let map, let chain = Self.asyncCallers(pid: pid, addresses, framePointers, map: map) {
                (unwound.asyncCallerIndex, unwound.asyncCallers) = chain
            }
            return unwound
        }
    }

    /// The async callers of the stack's Swift async frame, its context chain read from process
    /// `pid`'s memory a word at a time (on the memory worker).
    private static func asyncCallers(
        pid: Int32, _ addresses: [UInt64], _ pointers: FramePointers, map: ProcessMemoryMap
    ) -> (index: Int, callers: [UInt64])? {
        AsyncCallerChain.callers(
            addresses: addresses, framePointers: pointers.frame, stackPointers: pointers.stack, map: map
        ) { address in
            var word: UInt64 = 0
            let read = withUnsafeMutableBytes(of: &word) { lagmon_read_memory(pid_t(pid), address, $0.baseAddress, 8) }
            return read == 8 ? word : nil
        }
    }

    /// Unwinds a copy (on the memory worker: libunwind reads the live process); returns
    /// addresses innermost first, each frame's frame and stack pointers, and how the unwind ended.
    private static func unwind(
        _ copied: StackCopy, unwinder: OpaquePointer?
    ) -> ([UInt64], FramePointers, UnwindOutcome) {
        guard let unwinder else { return ([copied.registers.instructionPointer], FramePointers(), .failed) }
        var outcome = LAGMON_UNWIND_FAILED
        var ips = [UInt64](repeating: 0, count: StackSampler.maxFrames)
        var fps = [UInt64](repeating: 0, count: StackSampler.maxFrames)
        var sps = [UInt64](repeating: 0, count: StackSampler.maxFrames)
        let count = copied.bytes.withUnsafeBytes { stack in
            ips.withUnsafeMutableBufferPointer { ips in
                fps.withUnsafeMutableBufferPointer { fps in
                    sps.withUnsafeMutableBufferPointer { sps in
                        var copy = lagmon_stack_copy(
                            regs: copied.registers, stack_start: copied.start,
                            stack_length: UInt64(copied.bytes.count),
                            bytes: stack.baseAddress?.assumingMemoryBound(to: UInt8.self),
                            live_stack_start: copied.live.start, live_stack_end: copied.live.end)
                        return lagmon_unwind(
                            unwinder, &copy, ips.baseAddress, fps.baseAddress, sps.baseAddress, Int32(ips.count),
                            &outcome)
                    }
                }
            }
        }
        let addresses = count > 0 ? Array(ips[0..<Int(count)]) : [copied.registers.instructionPointer]
        let pointers = FramePointers(
            frame: count > 0 ? Array(fps[0..<Int(count)]) : [], stack: count > 0 ? Array(sps[0..<Int(count)]) : [])
        switch outcome {
        case LAGMON_UNWIND_COMPLETE: return (addresses, pointers, .complete)
        case LAGMON_UNWIND_TRUNCATED: return (addresses, pointers, .truncated)
        default: return (addresses, pointers, .failed)
        }
    }
}
