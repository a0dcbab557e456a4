/// Who awaited a Swift async function that a stack sample caught running: its logical callers,
/// read from the async context chain as Swift's own backtracer reads it
/// (swiftlang/swift stdlib/public/RuntimeModule/FramePointerUnwinder.swift).
///
/// An async function's frame keeps its async context just below its frame pointer (x86_64:
/// `push %rbp; push %r14; lea 8(%rsp), %rbp`, the context being in r14). A context starts with
/// `Parent` (the awaiting caller's context) and `ResumeParent` (where the caller resumes when this
/// function returns: a resume partial function of the caller); include/swift/ABI/Task.h. On
/// Darwin bit 60 of a saved frame pointer marks an async frame; Linux does not set it (checked on
/// Swift 6.3.1: docs/design.md), so, as the backtracer does on Linux, the frame is found by its
/// code: the frame the concurrency runtime's job loop called (lagmon takes the frame whose caller
/// lies in libswift_Concurrency and which itself does not).
///
/// Pure: the caller reads the target's memory (bounded) through `read`. The target's memory is
/// untrusted: the walk stops at a null, misaligned or unreadable context, a resume address
/// outside executable file mappings, a repeated context, or after `maxCallers`.
public enum AsyncCallerChain {
    /// Logical callers followed, at most.
    public static let maxCallers = 32

    /// The index of the physical frame the callers follow and their resume addresses (outermost
    /// last); nil when no frame of the stack is an async function run by the runtime.
    /// `framePointers` and `stackPointers` are each frame's registers as unwound (innermost first).
    public static func callers(
        addresses: [UInt64], framePointers: [UInt64], stackPointers: [UInt64], map: ProcessMemoryMap,
        read: (UInt64) -> UInt64?
    ) -> (index: Int, callers: [UInt64])? {
        guard let index = asyncFrameIndex(addresses: addresses, map: map),
            let framePointer = framePointer(
                of: index, addresses: addresses, framePointers: framePointers, stackPointers: stackPointers, read: read),
            var context = read(framePointer - 8)
        else { return nil }
        var callers: [UInt64] = []
        var seen: Set<UInt64> = []
        while callers.count < maxCallers, context != 0, context % 8 == 0, seen.insert(context).inserted {
            guard let parent = read(context), let resume = read(context &+ 8), isCode(resume, map: map) else { break }
            callers.append(resume)
            context = parent
        }
        return callers.isEmpty ? nil : (index, callers)
    }

    /// Frame `index`'s frame pointer: the unwound register, or else its canonical frame address
    /// (the caller's stack pointer) less the saved frame pointer and return address; whichever
    /// has the frame's return address (`addresses[index + 1]`) just above it, as a frame pointer
    /// does. An unwinder may restore the register wrongly where libc's code has no frame pointer.
    static func framePointer(
        of index: Int, addresses: [UInt64], framePointers: [UInt64], stackPointers: [UInt64],
        read: (UInt64) -> UInt64?
    ) -> UInt64? {
        guard index + 1 < addresses.count else { return nil }
        var candidates: [UInt64] = []
        if index < framePointers.count { candidates.append(framePointers[index]) }
        if index + 1 < stackPointers.count, stackPointers[index + 1] >= 16 {
            candidates.append(stackPointers[index + 1] - 16)
        }
        return candidates.first { candidate in
            candidate >= 8 && candidate % 8 == 0 && read(candidate &+ 8) == addresses[index + 1]
        }
    }

    /// The innermost frame outside libswift_Concurrency called from inside it: the job the
    /// runtime runs (a return address is looked up one byte back, inside its call).
    static func asyncFrameIndex(addresses: [UInt64], map: ProcessMemoryMap) -> Int? {
        guard addresses.count >= 2 else { return nil }
        for index in 0..<(addresses.count - 1) {
            let own = index == 0 ? addresses[index] : addresses[index] &- 1
            if !isRuntime(own, map: map), isRuntime(addresses[index + 1] &- 1, map: map) { return index }
        }
        return nil
    }

    private static func isRuntime(_ address: UInt64, map: ProcessMemoryMap) -> Bool {
        map.module(containing: address)?.name.hasPrefix(runtimeModulePrefix) == true
    }

    private static func isCode(_ address: UInt64, map: ProcessMemoryMap) -> Bool {
        map.module(containing: address)?.mapping.permissions.contains("x") == true
    }

    /// The Swift concurrency runtime's file name (`libswift_Concurrency.so`).
    static let runtimeModulePrefix = "libswift_Concurrency"
}
