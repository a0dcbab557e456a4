import Glibc
import LagmonCore

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
            symbol: answer?.name.map(Demangler.frameName), file: answer?.file, line: answer?.line)
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
                line: found?.line)
        }
    }
}
