import Glibc
import LagmonCore

/// A file (or the vDSO) and a virtual address in it: what a lookup is cached by.
struct SymbolizerLookup: Hashable {
    /// The file's path, or `[vdso]`.
    var key: String
    /// The ELF virtual address looked up.
    var address: UInt64
}

/// Where one stack address lies, before its lookup is answered.
enum SymbolizerLocation {
    /// Nothing to look up: unmapped, anonymous, deleted, unreadable, or outside any segment.
    case bare(address: UInt64, module: String, offset: UInt64)
    /// A lookup in a readable image.
    case image(SymbolizerLookup, address: UInt64, module: String, offset: UInt64)
}

/// What the symbolizer keeps across calls: each image read once (and again when its file
/// changes), each lookup answered once. Bounded: past `resolutionLimit` answers it starts over.
struct SymbolizerCache {
    /// One image and the answers found in it.
    struct Module {
        /// The file's identity when it was read (nil for the vDSO and unstat-able files).
        var identity: FileIdentity?
        /// Nil when the file could not be read as ELF.
        var image: ELFImage?
        /// Answers by virtual address.
        var resolved: [UInt64: Resolution] = [:]
    }

    /// A lookup's final answer: the name a frame shows (demangled, simplified) and its source.
    struct Resolution {
        var symbol: String?
        var file: String?
        var line: Int?
        /// Set (true) for a Swift async function's part.
        var isAsync: Bool? = nil
    }

    /// Device, inode, size and modification time: whether a path still names the file read.
    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modifiedNs: Int64

        init?(path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modifiedNs = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        }
    }

    static let resolutionLimit = 250_000

    var modules: [String: Module] = [:]
    var statistics = Symbolizer.Statistics()
    private var resolutionCount = 0

    /// Drops every answer when there are too many (images stay: they are the expensive part).
    mutating func trimIfFull() {
        guard resolutionCount > Self.resolutionLimit else { return }
        for key in modules.keys { modules[key]?.resolved = [:] }
        resolutionCount = 0
    }

    func resolution(for lookup: SymbolizerLookup) -> Resolution? {
        modules[lookup.key]?.resolved[lookup.address]
    }

    /// Records `answer` (demangling its name) for `lookup`; nil records "no symbol".
    mutating func store(_ answer: SymbolizerTool.Answer?, for lookup: SymbolizerLookup) {
        let resolution = Resolution(
            symbol: answer?.name.map(Demangler.frameName), file: answer?.file, line: answer?.line,
            isAsync: answer?.name.flatMap { Demangler.isAsync($0) ? true : nil })
        modules[lookup.key]?.resolved[lookup.address] = resolution
        resolutionCount += 1
    }

    /// The frame for a located address, with whatever its lookup found.
    func frame(for location: SymbolizerLocation) -> Frame {
        switch location {
        case .bare(let address, let module, let offset):
            return Frame(symbol: nil, module: module, offset: offset, address: address)
        case .image(let lookup, let address, let module, let offset):
            let found = resolution(for: lookup)
            return Frame(
                symbol: found?.symbol, module: module, offset: offset, address: address, file: found?.file,
                line: found?.line, isAsync: found?.isAsync)
        }
    }
}

/// One `symbolize` call: locates addresses in the memory map, reads images as needed (each file
/// checked once per call), and collects the lookups the cache cannot answer.
struct SymbolizerSession {
    var cache: SymbolizerCache
    let map: ProcessMemoryMap
    let pid: Int32?
    /// Lookups to answer in this call.
    private(set) var pending: Set<SymbolizerLookup> = []
    private var checked: Set<String> = []

    init(cache: SymbolizerCache, map: ProcessMemoryMap, pid: Int32?) {
        self.cache = cache
        self.map = map
        self.pid = pid
        self.cache.trimIfFull()
    }

    /// Where `address` lies; a return address is looked up one byte earlier, inside the call.
    mutating func locate(_ address: UInt64, isReturnAddress: Bool) -> SymbolizerLocation {
        let lookupAddress = isReturnAddress && address > 0 ? address - 1 : address
        guard let module = map.module(containing: lookupAddress) else {
            return .bare(address: address, module: "?", offset: address)
        }
        let offset = address &- module.loadBase
        guard let key = imageKey(module), let image = image(key, module: module),
            let virtualAddress = image.virtualAddress(of: lookupAddress, in: module.mapping)
        else { return .bare(address: address, module: module.name, offset: offset) }
        let lookup = SymbolizerLookup(key: key, address: virtualAddress)
        if cache.resolution(for: lookup) == nil { pending.insert(lookup) }
        return .image(lookup, address: address, module: module.name, offset: offset)
    }

    /// The symbol table's answer for `lookup`.
    func symbolTableAnswer(for lookup: SymbolizerLookup) -> SymbolizerTool.Answer? {
        cache.modules[lookup.key]?.image?.symbols.symbol(containing: lookup.address).map {
            SymbolizerTool.Answer(name: $0.name)
        }
    }

    /// Whether the external tool can add to the symbol table for `lookup`.
    func hasDebugInformation(_ lookup: SymbolizerLookup) -> Bool {
        guard lookup.key != "[vdso]", let image = cache.modules[lookup.key]?.image else { return false }
        return image.hasLineTables || image.hasSeparateDebugFile
    }

    /// The file to read for `module`: its path, or `[vdso]`; nil when there is nothing to read
    /// (a deleted file: the path now names another file, or none; other pseudo-mappings).
    private func imageKey(_ module: ProcessMemoryMap.Module) -> String? {
        if module.mapping.isDeleted { return nil }
        if module.mapping.path == "[vdso]" { return pid == nil ? nil : "[vdso]" }
        return module.path
    }

    /// The image for `key`, read on first use and again when the file changed since.
    private mutating func image(_ key: String, module: ProcessMemoryMap.Module) -> ELFImage? {
        if checked.insert(key).inserted {
            let identity = key == "[vdso]" ? nil : SymbolizerCache.FileIdentity(path: key)
            if cache.modules[key] == nil || cache.modules[key]?.identity != identity {
                cache.modules[key] = SymbolizerCache.Module(identity: identity, image: readImage(key, module: module))
            }
        }
        return cache.modules[key]?.image
    }

    private func readImage(_ key: String, module: ProcessMemoryMap.Module) -> ELFImage? {
        guard key == "[vdso]" else { return ELFImage(path: key) }
        let mapping = module.mapping
        guard let pid, let reader = ELFFileReader(pid: pid, address: mapping.start, size: mapping.end - mapping.start)
        else { return nil }
        return ELFImage(reader: reader)
    }
}
