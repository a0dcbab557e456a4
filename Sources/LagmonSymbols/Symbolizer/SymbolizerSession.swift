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
    /// Where stripped images' debug files are looked for.
    let debugFiles: ELFDebugFileLocator
    /// Lookups to answer in this call.
    private(set) var pending: Set<SymbolizerLookup> = []

    init(
        cache: SymbolizerCache, map: ProcessMemoryMap, pid: Int32?, files: [MappedFile.Key: MappedFile] = [:],
        fileSystem: TargetFileSystem, debugFiles: ELFDebugFileLocator = ELFDebugFileLocator()
    ) {
        self.cache = cache
        self.map = map
        self.pid = pid
        self.files = files
        self.fileSystem = fileSystem
        self.debugFiles = debugFiles
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

    /// The symbol table's answer for `lookup`: the image's `.symtab`, else its debug file's,
    /// else its exports.
    func symbolTableAnswer(for lookup: SymbolizerLookup) -> SymbolizerTool.Answer? {
        guard let module = cache.modules[lookup.key], let image = module.image else { return nil }
        let full = module.debug.map(\.image.symbols).flatMap { image.symbols.isExportsOnly && $0.count > 0 ? $0 : nil }
        return (full ?? image.symbols).symbol(containing: lookup.address).map { SymbolizerTool.Answer(name: $0.name) }
    }

    /// The path the external tool opens for `lookup` (lagmon's own descriptor of the image, or of
    /// its separate debug file when only that has line tables); nil when the tool cannot add to
    /// the symbol table.
    func toolPath(_ lookup: SymbolizerLookup) -> String? {
        guard lookup.key != "[vdso]", let module = cache.modules[lookup.key], let image = module.image else {
            return nil
        }
        if image.hasLineTables { return module.source?.openPath }
        return module.debug.flatMap { $0.image.hasLineTables ? $0.file.openPath : nil }
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
        let image = source?.reader().flatMap { ELFImage(reader: $0) }
        // A stripped image's names and lines are in its debug file, if one is installed. Its
        // directory is searched only when its path is safe to open (as `byPath` requires).
        let debug = image.flatMap { image in
            image.symbols.isExportsOnly || !image.hasLineTables
                ? debugFiles.locate(image, path: safeDirectoryPath(module)) : nil
        }
        let symbols = debug.map(\.image.symbols).flatMap { image?.symbols.isExportsOnly == true ? $0 : nil }
        let crate = (symbols ?? image?.symbols).flatMap { RustProgramCrate.find(in: $0, executableName: module.name) }
        return SymbolizerCache.Module(image: image, source: source, debug: debug, programCrate: crate)
    }

    /// The image's path, when its directory may be searched for a `.gnu_debuglink` file: not
    /// deleted, not on a file system another process or a network serves, and named in lagmon's
    /// own root (a path a container names is not searched on the host).
    private func safeDirectoryPath(_ module: ProcessMemoryMap.Module) -> String? {
        let mapping = module.mapping
        guard !mapping.isDeleted, !FileSystemServers.serveRemotely(device: mapping.device, pid: pid),
            fileSystem.rootPath == "/"
        else { return nil }
        return module.path
    }

    /// A reader of lagmon's own vDSO, when it is `size` bytes long.
    private static func ownVDSO(size: UInt64) -> ELFFileReader? {
        guard let own = MemoryMapParser.parse(ProcSelfMaps.text()).first(where: { $0.path == "[vdso]" }),
            own.end - own.start == size
        else { return nil }
        return ELFFileReader(pid: getpid(), address: own.start, size: size)
    }
}
