import LagmonCore
import LagmonSymbols

/// Reads which Java method each frame of HotSpot's interpreter in an unwound stack runs: the
/// interpreter keeps the frame's `Method*` in a slot below its frame pointer
/// (`HotSpotLayout.methodSlot`), read from the stack copied during the pause (live beyond it, as
/// the unwinder reads), and the method's name from its metadata (`HotSpotMethodNames`). Runs on
/// the memory worker after the pause: metadata does not move while a method exists, and every
/// read is bounded; a frame whose method cannot be read stays `[interpreted Java]`.
final class HotSpotFrameReader {
    /// Most interpreter frames named per sample (the others stay `[interpreted Java]`).
    static let maxFrames = 64
    /// Largest plausible interpreter frame (frame pointer above stack pointer).
    static let maxFrameBytes: UInt64 = 1 << 20

    let pid: Int32
    let names: HotSpotMethodNames
    var layout: HotSpotLayout { names.layout }

    init(pid: Int32, layout: HotSpotLayout) {
        self.pid = pid
        names = HotSpotMethodNames(layout: layout) { address, count in
            HotSpotRuntime.readMemory(pid: pid, address, count)
        }
    }

    /// The stack's part read during the pause: `bytes` from `start`, in the stack mapping
    /// `[liveStart, liveEnd)` (zeros when unknown).
    struct Stack {
        var start: UInt64
        var bytes: [UInt8]
        var liveStart: UInt64
        var liveEnd: UInt64
    }

    /// The interpreter frames of the stack whose frames are at `addresses` (innermost first) with
    /// frame and stack pointers `framePointers` and `stackPointers`, and the methods they ran.
    func frames(addresses: [UInt64], framePointers: [UInt64], stackPointers: [UInt64], stack: Stack)
        -> [InterpretedJavaFrame]
    {
        var frames: [InterpretedJavaFrame] = []
        for (index, address) in addresses.enumerated() where frames.count < Self.maxFrames {
            // A return address points after its call: the call is what lies in the interpreter.
            guard layout.isInterpreter(index == 0 ? address : address &- 1) else { continue }
            let method =
                index < framePointers.count && index < stackPointers.count
                ? methodSlot(framePointers[index], stackPointer: stackPointers[index], stack: stack) : nil
            frames.append(InterpretedJavaFrame(index: index, method: method.flatMap(names.name(method:))))
        }
        return frames
    }

    /// The `Method*` in the slot below frame pointer `framePointer`, when that is plausibly an
    /// interpreter frame's: above the frame's stack pointer, within the stack.
    private func methodSlot(_ framePointer: UInt64, stackPointer: UInt64, stack: Stack) -> UInt64? {
        guard framePointer % 8 == 0, stackPointer != 0, framePointer > stackPointer,
            framePointer - stackPointer < Self.maxFrameBytes,
            stack.liveEnd == 0 || (framePointer > stack.liveStart && framePointer < stack.liveEnd)
        else { return nil }
        let slot = framePointer &+ UInt64(bitPattern: Int64(layout.methodSlot * 8))
        if slot >= stack.start, slot - stack.start <= UInt64(max(0, stack.bytes.count - 8)), stack.bytes.count >= 8 {
            return stack.bytes.elf64(Int(slot - stack.start))
        }
        return HotSpotRuntime.readMemory(pid: pid, slot, 8).map { $0.elf64(0) }
    }
}
