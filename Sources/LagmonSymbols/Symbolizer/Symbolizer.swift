import FoundationEssentials
import Glibc
import LagmonCore
import Synchronization

/// Turns raw stack addresses of a process into `Frame`s, after sampling (never during a pause).
///
/// Names come from the ELF symbol tables, read in-process (fast, and enough for every module
/// without debug information: the Swift runtime, Foundation, glibc); a stripped image's from
/// its separate debug file, when one is installed (`ELFDebugFileLocator`). Only addresses in
/// images that carry DWARF line tables (or whose debug file does) go to the external
/// tool (`SymbolizerTool`), all in one llvm-symbolizer process per call, for file:line and the
/// debug information's name. Answers are cached by (file, virtual address) across calls; a file
/// that changed on disk is read again.
///
/// Errors are data: an address outside any mapping, an unreadable or deleted file, a symbol-less
/// range, a tool that failed or timed out — each gives a frame with `symbol == nil` (keeping
/// module and offset), never a throw. Work is bounded: the tool is killed after `timeoutNs`
/// and sees at most `toolLookupLimit` addresses per call. Calls are serialised (one lock around
/// the cache and the tool run).
public final class Symbolizer: Sendable {
    /// What the symbolizer did so far: what lagmon reports about its own cost.
    public struct Statistics: Sendable, Equatable {
        /// Addresses symbolized (every frame of every stack).
        public var addresses = 0
        /// Distinct (file, address) pairs that had to be looked up (the rest came from the cache).
        public var lookups = 0
        /// Runs of the external tool.
        public var toolRuns = 0
        /// Runs that failed: not startable, timed out, crashed, or answered nothing usable.
        public var toolFailures = 0
        /// Wall time spent in `symbolize`, all calls together.
        public var durationNs: UInt64 = 0
    }

    /// The external tool, if any.
    public let tool: SymbolizerTool
    /// How long one tool run may take before it is killed.
    public let timeoutNs: UInt64
    /// The most addresses one call sends to the tool; the rest get symbol-table names only.
    public let toolLookupLimit: Int

    private let state = Mutex(SymbolizerCache())
    private let childEnvironment: [String]
    private let debugFiles: ELFDebugFileLocator

    /// A symbolizer using `tool` (by default the one `SymbolizerTool.locate()` finds), looking for
    /// stripped images' debug files under `debugDirectories` (`ELFDebugFileLocator`).
    public init(
        tool: SymbolizerTool = .locate(), timeoutNs: UInt64 = 5_000_000_000, toolLookupLimit: Int = 10_000,
        debugDirectories: [String] = ["/usr/lib/debug"]
    ) {
        self.tool = tool
        self.timeoutNs = timeoutNs
        self.toolLookupLimit = toolLookupLimit
        debugFiles = ELFDebugFileLocator(directories: debugDirectories)
        // No network: llvm-symbolizer would query debuginfod servers when this is set.
        childEnvironment = ProcessInfo.processInfo.environment.filter { $0.key != "DEBUGINFOD_URLS" }
            .map { "\($0.key)=\($0.value)" }.sorted()
    }

    /// Totals over every call so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Frames for `samples` of process `pid`, whose memory map is `map`; `files` are the mapped
    /// files already opened while the process ran (see `symbolize(stacks:map:pid:files:)`). Each
    /// resolved sample also carries the file mappings holding its addresses.
    public func symbolize(
        _ samples: [StackSample], map: ProcessMemoryMap, pid: Int32? = nil, files: [MappedFile.Key: MappedFile] = [:],
        fileSystem: TargetFileSystem? = nil
    ) -> [ResolvedSample] {
        let frames = symbolize(
            stacks: samples.map(\.addresses), map: map, pid: pid, files: files, fileSystem: fileSystem)
        let images = imageMappings(Set(samples.flatMap(\.addresses)), map: map, pid: pid ?? 0)
        return zip(samples, frames).map { sample, frames in
            let held = images.filter { image in sample.addresses.contains { image.contains($0, pid: image.pid) } }
            return ResolvedSample(sample: sample, frames: frames, images: held)
        }
    }

    /// The mappings of files (and the vDSO) holding `addresses`, with the build ids of the images
    /// the symbolizer read (cached by path and inode, as SymbolizerSession keys them).
    private func imageMappings(_ addresses: Set<UInt64>, map: ProcessMemoryMap, pid: Int32) -> [ImageMapping] {
        var mappings: [UInt64: MemoryMapping] = [:]
        for address in addresses {
            guard let module = map.module(containing: address), module.mapping.isFile || module.name == "[vdso]"
            else { continue }
            mappings[module.mapping.start] = module.mapping
        }
        return state.withLock { cache in
            mappings.values.sorted { $0.start < $1.start }.map { mapping in
                let key = mapping.path == "[vdso]" ? "[vdso]" : mapping.path + "\u{0}" + String(mapping.inode)
                return ImageMapping(
                    pid: pid, module: mapping.moduleName, path: mapping.filePath ?? mapping.moduleName,
                    start: mapping.start, limit: mapping.end, fileOffset: mapping.fileOffset,
                    buildId: cache.modules[key]?.image?.buildID)
            }
        }
    }

    /// One frame per address of each stack (innermost first, so every address but the first is a
    /// return address and is looked up as `address - 1`, inside the call). `pid` lets the vDSO be
    /// read from the process's memory. An image is read from its file in `files` (opened through
    /// /proc/<pid>/map_files while the process ran: deleted and replaced files included), else
    /// from its path in the process's root (`fileSystem`, by default the one of `pid`, opened
    /// now), only while it is a regular file with the mapped inode, never blocking.
    public func symbolize(
        stacks: [[UInt64]], map: ProcessMemoryMap, pid: Int32? = nil, files: [MappedFile.Key: MappedFile] = [:],
        fileSystem: TargetFileSystem? = nil
    ) -> [[Frame]] {
        let started = SymbolizerClock.nowNs()
        // Samples of one stall share most of their addresses: each distinct one is done once.
        let distinct = Set(stacks.flatMap { stack in stack.indices.map { StackAddress(stack[$0], isReturn: $0 > 0) } })
        return state.withLock { cache in
            defer { cache.statistics.durationNs += SymbolizerClock.nowNs() - started }
            var session = SymbolizerSession(
                cache: cache, map: map, pid: pid, files: files, fileSystem: fileSystem ?? TargetFileSystem(pid: pid),
                debugFiles: debugFiles)
            cache = SymbolizerCache()  // the session's copy is now the only one: no copy on write
            let located = distinct.map { ($0, session.locate($0.address, isReturnAddress: $0.isReturn)) }
            resolvePending(&session)
            cache = session.cache
            cache.statistics.addresses += stacks.reduce(0) { $0 + $1.count }
            let frames = Dictionary(uniqueKeysWithValues: located.map { ($0, cache.frame(for: $1)) })
            return stacks.map { stack in
                stack.indices.map {
                    frames[StackAddress(stack[$0], isReturn: $0 > 0)]
                        ?? Frame(symbol: nil, module: "?", offset: stack[$0], address: stack[$0])
                }
            }
        }
    }

    /// An address as a stack holds it: the pc (first) or a return address.
    private struct StackAddress: Hashable {
        var address: UInt64
        var isReturn: Bool
        init(_ address: UInt64, isReturn: Bool) {
            self.address = address
            self.isReturn = isReturn
        }
    }

    /// Looks up every address not in the cache: symbol tables first, then the tool for those in
    /// images with debug information.
    private func resolvePending(_ session: inout SymbolizerSession) {
        let pending = session.pending.sorted { ($0.key, $0.address) < ($1.key, $1.address) }
        session.cache.statistics.lookups += pending.count
        var answers = pending.map { session.symbolTableAnswer(for: $0) }
        // The tool opens the file lagmon holds (by /proc/self/fd path), never the target's path.
        let forTool = pending.indices.compactMap { index in
            session.toolPath(pending[index]).map { (index: index, path: $0) }
        }.prefix(toolLookupLimit)
        if !forTool.isEmpty {
            let requests = forTool.map { (path: $0.path, address: pending[$0.index].address) }
            let toolAnswers = runTool(requests, statistics: &session.cache.statistics)
            for (index, answer) in zip(forTool.map(\.index), toolAnswers) {
                answers[index] = merge(answers[index], answer)
            }
        }
        for (lookup, answer) in zip(pending, answers) { session.cache.store(answer, for: lookup) }
    }

    /// The tool's name wins (debug information knows local functions the symbol table may not).
    private func merge(_ table: SymbolizerTool.Answer?, _ tool: SymbolizerTool.Answer?) -> SymbolizerTool.Answer? {
        guard let tool else { return table }
        return SymbolizerTool.Answer(name: tool.name ?? table?.name, file: tool.file, line: tool.line)
    }

    /// One answer per request, nil where the tool gave none (or failed).
    private func runTool(_ requests: [(path: String, address: UInt64)], statistics: inout Statistics)
        -> [SymbolizerTool.Answer?]
    {
        switch tool {
        case .none: return requests.map { _ in nil }
        case .llvmSymbolizer(let path): return runLLVM(path, requests, statistics: &statistics)
        case .addr2line(let path): return runAddr2line(path, requests, statistics: &statistics)
        }
    }

    private func runLLVM(
        _ executable: String, _ requests: [(path: String, address: UInt64)], statistics: inout Statistics
    ) -> [SymbolizerTool.Answer?] {
        let lines = requests.map { SymbolizerTool.llvmInputLine(path: $0.path, address: $0.address) }
        let sent = lines.indices.filter { lines[$0] != nil }
        let output = run(
            executable, SymbolizerTool.llvmArguments, input: sent.compactMap { lines[$0] }.joined(),
            deadline: SymbolizerClock.nowNs() &+ timeoutNs, statistics: &statistics)
        let parsed = SymbolizerTool.parseLLVMOutput(output, count: sent.count)
        var answers = [SymbolizerTool.Answer?](repeating: nil, count: requests.count)
        for (index, answer) in zip(sent, parsed) { answers[index] = answer }
        return answers
    }

    /// One addr2line per module, all within one deadline.
    private func runAddr2line(
        _ executable: String, _ requests: [(path: String, address: UInt64)], statistics: inout Statistics
    ) -> [SymbolizerTool.Answer?] {
        let deadline = SymbolizerClock.nowNs() &+ timeoutNs
        var answers = [SymbolizerTool.Answer?](repeating: nil, count: requests.count)
        let byModule = Dictionary(grouping: requests.indices, by: { requests[$0].path })
        for path in byModule.keys.sorted() {
            let indices = byModule[path] ?? []
            let input = indices.map { "0x\(String(requests[$0].address, radix: 16))\n" }.joined()
            let output = run(
                executable, SymbolizerTool.addr2lineArguments(path: path), input: input, deadline: deadline,
                statistics: &statistics)
            for (index, answer) in zip(indices, SymbolizerTool.parseAddr2lineOutput(output, count: indices.count)) {
                answers[index] = answer
            }
        }
        return answers
    }

    /// Runs the tool once; whatever stdout it produced, even when it failed (a partial answer
    /// still names the addresses it reached).
    private func run(
        _ executable: String, _ arguments: [String], input: String, deadline: UInt64, statistics: inout Statistics
    ) -> [UInt8] {
        let now = SymbolizerClock.nowNs()
        guard now < deadline else {
            statistics.toolFailures += 1
            return []
        }
        statistics.toolRuns += 1
        let process = SymbolizerSubprocess(
            executable: executable, arguments: arguments, environment: childEnvironment, timeoutNs: deadline - now,
            outputLimit: 64 << 20)
        switch process.run(input: Array(input.utf8)) {
        case .success(let output): return output
        case .failure(.timedOut(let partial)), .failure(.exited(_, let partial)):
            statistics.toolFailures += 1
            return partial
        case .failure:
            statistics.toolFailures += 1
            return []
        }
    }
}
