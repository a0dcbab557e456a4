import LagmonCore

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
