import Glibc
import LagmonCore

/// One `symbolize` call: locates addresses in the memory map, reads images as needed, and
/// collects the lookups the cache cannot answer.
struct SymbolizerSession {
    var cache: SymbolizerCache
    let map: ProcessMemoryMap
    let pid: Int32?
    /// Files opened while the process ran.
    let files: [MappedFile.Key: MappedFile]
    /// What opens the others, by their paths in the process's root.
    let fileSystem: TargetFileSystem
    /// Lookups to answer in this call.
    private(set) var pending: Set<SymbolizerLookup> = []

    init(
        cache: SymbolizerCache, map: ProcessMemoryMap, pid: Int32?, files: [MappedFile.Key: MappedFile] = [:],
        fileSystem: TargetFileSystem
    ) {
        self.cache = cache
        self.map = map
        self.pid = pid
        self.files = files
        self.fileSystem = fileSystem
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

    /// The path the external tool opens for `lookup` (lagmon's own descriptor of the file); nil
    /// when the tool cannot add to the symbol table (no line tables, no separate debug file).
    func toolPath(_ lookup: SymbolizerLookup) -> String? {
        guard lookup.key != "[vdso]", let module = cache.modules[lookup.key], let image = module.image,
            image.hasLineTables || image.hasSeparateDebugFile
        else { return nil }
        return module.source?.openPath
    }

    /// The cache key of `module`'s image: `[vdso]`, or its path and inode (a file deleted or
    /// replaced since is another image); nil when there is nothing to read.
    private func imageKey(_ module: ProcessMemoryMap.Module) -> String? {
        if module.mapping.path == "[vdso]" { return pid == nil ? nil : "[vdso]" }
        guard module.mapping.isFile else { return nil }
        return module.mapping.path + "\u{0}" + String(module.mapping.inode)
    }

    /// The image for `key`, read on first use (and again when an opened file arrives for an image
    /// that could not be read by its path).
    private mutating func image(_ key: String, module: ProcessMemoryMap.Module) -> ELFImage? {
        let file = files[MappedFile.Key(module.mapping)]
        if cache.modules[key] == nil || (cache.modules[key]?.source == nil && file != nil) {
            cache.modules[key] = readModule(key, module: module, file: file)
        }
        return cache.modules[key]?.image
    }

    private func readModule(_ key: String, module: ProcessMemoryMap.Module, file: MappedFile?) -> SymbolizerCache.Module
    {
        let mapping = module.mapping
        guard key != "[vdso]" else {
            let size = mapping.end - mapping.start
            // After the process exited its memory is gone: lagmon's own vDSO is the same kernel's
            // image (the same size tells a 64-bit one from a compat one).
            let reader =
                pid.flatMap { ELFFileReader(pid: $0, address: mapping.start, size: size) } ?? Self.ownVDSO(size: size)
            return SymbolizerCache.Module(image: reader.flatMap { ELFImage(reader: $0) })
        }
        // Without a file opened while the process ran, the path in the process's root, only while
        // it is a regular file with the mapped inode (a deleted mapping's path names something
        // else, or nothing). Never a file another process or a network serves (it may never
        // answer): only the copy the sampler made of it, if any.
        let byPath =
            mapping.isDeleted || FileSystemServers.serveRemotely(device: mapping.device, pid: pid)
            ? nil
            : module.path.flatMap {
                try? fileSystem.openFile(fileSystem.pathInRoot($0), inode: mapping.inode).get()
            }
        let source = file ?? byPath
        return SymbolizerCache.Module(image: source?.reader().flatMap { ELFImage(reader: $0) }, source: source)
    }

    /// A reader of lagmon's own vDSO, when it is `size` bytes long.
    private static func ownVDSO(size: UInt64) -> ELFFileReader? {
        guard let own = MemoryMapParser.parse(ProcSelfMaps.text()).first(where: { $0.path == "[vdso]" }),
            own.end - own.start == size
        else { return nil }
        return ELFFileReader(pid: getpid(), address: own.start, size: size)
    }
}
