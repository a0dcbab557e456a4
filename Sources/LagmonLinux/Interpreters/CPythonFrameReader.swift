import CLagmonLinux
import Glibc
import LagmonCore
import LagmonSymbols

/// Reads a Python process's frames from its memory: during the pause only the chain of
/// (code object, instruction) pairs of the stopped thread; after it resumed, the code objects'
/// names, files and line tables (cached by address, re-validated per sample). Every read is a
/// bounded process_vm_readv; anything unreadable or implausible ends the walk, never a trap.
final class CPythonFrameReader {
    /// One frame as read during the pause.
    struct RawFrame {
        var code: UInt64
        /// `f_lasti` (≤ 3.10) or the instruction pointer (3.11+).
        var instruction: UInt64
        var endsEntry: Bool
    }

    /// What a code object says, read once.
    private struct Code {
        var header: [UInt8]
        var function: String
        var file: String
        var firstLine: Int
        var lineTable: [UInt8]
    }

    /// Most Python frames read per sample.
    static let maxFrames = 128
    /// Most thread states visited when looking for a thread's.
    static let maxThreadStates = 4096
    /// Longest name or file name read, and largest line table.
    static let maxStringLength = 4096
    static let maxLineTableBytes = 1 << 20

    let pid: Int32
    let runtime: CPythonRuntime
    var layout: CPythonLayout { runtime.layout }
    /// Each thread's `PyThreadState`, by tid.
    private var threadStates: [Int32: UInt64] = [:]
    /// Each thread's id in the process's own PID namespace (what `native_thread_id` holds), by
    /// the tid lagmon knows it by; the same number unless the process runs in a container.
    private var namespacedTids: [Int32: Int32] = [:]
    private var codes: [UInt64: Code] = [:]
    private var scratch = [UInt8](repeating: 0, count: 512)
    /// Pages read during the current pause: frames of 3.11+ sit side by side on the thread's
    /// data stack, so one page read serves several (each read is a system call of the pause).
    private var pages = [UInt8](repeating: 0, count: CPythonFrameReader.cachedPages * 4096)
    private var pageAddresses = [UInt64](repeating: 0, count: CPythonFrameReader.cachedPages)
    private var pagesUsed = 0
    private var caching = false
    static let cachedPages = 8

    init(pid: Int32, runtime: CPythonRuntime) {
        self.pid = pid
        self.runtime = runtime
    }

    // MARK: During the pause

    /// The frame chain of thread `tid` (whose `fs_base` register is `fsBase`), innermost first;
    /// empty when the thread has no Python thread state or runs no Python code.
    func readFrames(tid: Int32, fsBase: UInt64) -> [RawFrame] {
        caching = true
        pagesUsed = 0
        defer { caching = false }
        var state = threadStates[tid].flatMap { belongs($0, tid: tid, fsBase: fsBase) ? $0 : nil }
        if state == nil {
            state = findThreadState(tid: tid, fsBase: fsBase)
            threadStates[tid] = state
        }
        guard let state, var frame = word(state + UInt64(layout.threadFrame)) else { return [] }
        if let current = layout.cframeCurrentFrame {
            guard frame != 0, let next = word(frame + UInt64(current)) else { return [] }
            frame = next
        }
        return walk(from: frame)
    }

    private func walk(from first: UInt64) -> [RawFrame] {
        var frames: [RawFrame] = []
        var frame = first
        var steps = 0
        while frame != 0 && steps < Self.maxFrames * 2 && frames.count < Self.maxFrames {
            steps += 1
            guard fill(frame, count: layout.frameReadSize) else { break }
            let back = load(layout.frameBack)
            let code = load(layout.frameCode)
            let owner = layout.frameOwner.map { scratch[$0] }
            if owner == CPythonLayout.ownedByCStack {
                // 3.12+: the entry shim of one eval call; the frame inside it ends that entry.
                if !frames.isEmpty { frames[frames.count - 1].endsEntry = true }
            } else if code != 0 {
                let instruction =
                    layout.hasInterpreterFrames
                    ? load(layout.frameInstruction) : UInt64(UInt32(truncatingIfNeeded: load(layout.frameInstruction)))
                let endsEntry = layout.version <= 310 || (layout.frameIsEntry.map { scratch[$0] != 0 } ?? false)
                frames.append(RawFrame(code: code, instruction: instruction, endsEntry: endsEntry))
            }
            frame = back
        }
        if !frames.isEmpty { frames[frames.count - 1].endsEntry = true }
        return frames
    }

    /// Whether the thread state at `address` is thread `tid`'s.
    private func belongs(_ address: UInt64, tid: Int32, fsBase: UInt64) -> Bool {
        guard fill(address, count: layout.threadReadSize) else { return false }
        if let native = layout.threadNativeThreadID {
            // gettid() in the process: its own namespace's number, not lagmon's.
            return load(native) == UInt64(UInt32(bitPattern: namespacedTid(tid)))
        }
        // ≤ 3.10: `thread_id` is the thread's pthread_t, which glibc keeps in fs_base.
        return load(layout.threadThreadID) == fsBase
    }

    /// Thread `tid`'s id in the process's PID namespace (the last `NSpid` of its status), read
    /// once per thread; `tid` itself when the status does not say.
    private func namespacedTid(_ tid: Int32) -> Int32 {
        if let known = namespacedTids[tid] { return known }
        let status = ProcFS.readFile("/proc/\(pid)/task/\(tid)/status").map { String(decoding: $0, as: UTF8.self) }
        let namespaced = status.flatMap(TargetFileSystem.namespacedPid(status:)) ?? tid
        if namespacedTids.count > 65_536 { namespacedTids.removeAll() }
        namespacedTids[tid] = namespaced
        return namespaced
    }

    /// Walks every interpreter's thread states for `tid`'s (bounded).
    private func findThreadState(tid: Int32, fsBase: UInt64) -> UInt64? {
        var visited = 0
        var interpreter = word(runtime.runtimeAddress + UInt64(layout.runtimeInterpretersHead)) ?? 0
        while interpreter != 0 && visited < Self.maxThreadStates {
            var state = word(interpreter + UInt64(layout.interpreterThreadsHead)) ?? 0
            while state != 0 && visited < Self.maxThreadStates {
                visited += 1
                if belongs(state, tid: tid, fsBase: fsBase) { return state }
                state = word(state + UInt64(layout.threadNext)) ?? 0
            }
            interpreter = word(interpreter + UInt64(layout.interpreterNext)) ?? 0
            visited += 1
        }
        return nil
    }

    // MARK: After the pause

    /// Names, files and lines of `frames` (read during a pause); frames whose code cannot be
    /// read are left out.
    func resolve(_ frames: [RawFrame]) -> [InterpreterFrame] {
        var resolved: [InterpreterFrame] = []
        for (index, frame) in frames.enumerated() {
            guard let code = code(at: frame.code) else {
                if frame.endsEntry, !resolved.isEmpty { resolved[resolved.count - 1].endsEntry = true }
                continue
            }
            let line = CPythonLineTable.line(
                layout.lineTableFormat, table: code.lineTable, firstLine: code.firstLine,
                byteOffset: byteOffset(frame, code: frame.code))
            resolved.append(
                InterpreterFrame(
                    function: code.function, file: code.file, line: line,
                    endsEntry: frame.endsEntry || index == frames.count - 1))
        }
        return resolved
    }

    /// The instruction's offset in bytes from the code's first instruction.
    private func byteOffset(_ frame: RawFrame, code: UInt64) -> Int {
        switch layout.lineTableFormat {
        case .lnotab, .lnotabUnsignedLines: return Int(Int32(bitPattern: UInt32(truncatingIfNeeded: frame.instruction)))
        case .lineTable310: return Int(Int32(bitPattern: UInt32(truncatingIfNeeded: frame.instruction))) &* 2
        case .locationTable:
            let start = code &+ UInt64(layout.codeInstructions ?? 0)
            let offset = Int64(bitPattern: frame.instruction &- start)
            return offset < 0 || offset > Int64(Self.maxLineTableBytes) * 16 ? -1 : Int(offset)
        }
    }

    /// The code object at `address`, from the cache when its header is unchanged.
    private func code(at address: UInt64) -> Code? {
        guard let header = read(address, count: layout.codeReadSize) else { return nil }
        if let cached = codes[address], cached.header == header { return cached }
        let field = { (offset: Int) in header.word(offset) }
        let nameAddress = layout.codeQualname.map(field) ?? field(layout.codeName)
        guard let function = string(at: nameAddress) ?? string(at: field(layout.codeName)),
            let file = string(at: field(layout.codeFilename))
        else { return nil }
        let firstLine = Int(Int32(bitPattern: UInt32(truncatingIfNeeded: field(layout.codeFirstLineNumber))))
        let code = Code(
            header: header, function: function, file: file, firstLine: firstLine,
            lineTable: bytes(at: field(layout.codeLineTable)) ?? [])
        if codes.count > 65_536 { codes.removeAll() }
        codes[address] = code
        return code
    }

    /// A `str` object's text: compact strings only (what code objects hold); 2.7's `str` is a
    /// byte string, read as UTF-8.
    private func string(at address: UInt64) -> String? {
        if layout.namesAreByteStrings {
            return bytes(at: address).flatMap {
                $0.count <= Self.maxStringLength ? String(decoding: $0, as: UTF8.self) : nil
            }
        }
        guard address != 0, let header = read(address, count: layout.unicodeCompactData) else { return nil }
        let state = header.word(layout.unicodeState) & 0xffff_ffff
        let kind = Int((state >> 2) & 7)
        let compact = (state >> 5) & 1 == 1
        let ascii = (state >> 6) & 1 == 1
        let length = Int(clamping: Int64(bitPattern: header.word(layout.unicodeLength)))
        guard compact, [1, 2, 4].contains(kind), length >= 0, length <= Self.maxStringLength else { return nil }
        let start = address + UInt64(ascii ? layout.unicodeASCIIData : layout.unicodeCompactData)
        guard let data = read(start, count: length * kind) else { return nil }
        if ascii { return String(decoding: data, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        for index in 0..<length {
            var value: UInt32 = 0
            for byte in (0..<kind).reversed() { value = value << 8 | UInt32(data[index * kind + byte]) }
            scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
        }
        return String(scalars)
    }

    /// A `bytes` object's contents.
    private func bytes(at address: UInt64) -> [UInt8]? {
        guard address != 0, let header = read(address, count: layout.bytesData) else { return nil }
        let size = Int64(bitPattern: header.word(layout.bytesSize))
        guard size >= 0, size <= Self.maxLineTableBytes else { return nil }
        return size == 0 ? [] : read(address + UInt64(layout.bytesData), count: Int(size))
    }

    // MARK: Memory

    /// Reads `count` bytes at `address` into `scratch`; false unless all arrived.
    private func fill(_ address: UInt64, count: Int) -> Bool {
        guard count <= scratch.count, address != 0 else { return false }
        let page = address & ~4095
        if caching, address &+ UInt64(count) <= page &+ 4096, let slot = cachedPage(page) {
            let start = slot * 4096 + Int(address - page)
            scratch.withUnsafeMutableBytes { target in
                pages.withUnsafeBytes { source in
                    target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<start + count]))
                }
            }
            return true
        }
        return scratch.withUnsafeMutableBytes { lagmon_read_memory(pid, address, $0.baseAddress, count) } == count
    }

    /// The slot of `page` in the pause's cache, reading it when new; nil when it is unreadable
    /// or the cache is full.
    private func cachedPage(_ page: UInt64) -> Int? {
        if let slot = pageAddresses[0..<pagesUsed].firstIndex(of: page) { return slot }
        guard pagesUsed < Self.cachedPages else { return nil }
        let slot = pagesUsed
        let read = pages.withUnsafeMutableBytes {
            lagmon_read_memory(pid, page, $0.baseAddress.map { $0 + slot * 4096 }, 4096)
        }
        guard read == 4096 else { return nil }
        pageAddresses[slot] = page
        pagesUsed += 1
        return slot
    }

    private func load(_ offset: Int) -> UInt64 { scratch.word(offset) }

    /// The 8-byte word at `address`.
    private func word(_ address: UInt64) -> UInt64? {
        fill(address, count: 8) ? load(0) : nil
    }

    private func read(_ address: UInt64, count: Int) -> [UInt8]? {
        guard count >= 0, address != 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        let read = bytes.withUnsafeMutableBytes { lagmon_read_memory(pid, address, $0.baseAddress, count) }
        return read == count ? bytes : nil
    }
}

extension [UInt8] {
    /// The little-endian 8-byte word at `offset`; zero when out of range.
    fileprivate func word(_ offset: Int) -> UInt64 { elf64(offset) }
}
