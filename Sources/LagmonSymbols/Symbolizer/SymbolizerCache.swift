import Glibc
import LagmonCore

/// What the symbolizer keeps across calls: each image read once (by path and inode: a file
/// replaced on disk is another image), each lookup answered once. Bounded: past
/// `resolutionLimit` answers it starts over.
struct SymbolizerCache {
    /// One image and the answers found in it.
    struct Module {
        /// Nil when the file could not be read as ELF.
        var image: ELFImage?
        /// The open file the image was read from (kept open for the external tool); nil for the
        /// vDSO and files that could not be opened.
        var source: MappedFile?
        /// The image's separate debug file, when it is stripped and one was found.
        var debug: ELFDebugFileLocator.Found? = nil
        /// The crate of a Rust program's own code (`RustProgramCrate`); nil for other images.
        var programCrate: String? = nil
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
        /// Set (true) for a library's code compiled into the image (`Frame.isLibrary`).
        var isLibrary: Bool? = nil
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
        let rust = answer?.name.flatMap(RustSymbol.demangle)
        let programCrate = modules[lookup.key]?.programCrate
        let resolution = Resolution(
            symbol: rust?.name ?? answer?.name.map(Demangler.frameName), file: answer?.file, line: answer?.line,
            isAsync: answer?.name.flatMap { Demangler.isAsync($0) ? true : nil },
            isLibrary: rust.flatMap { RustProgramCrate.isLibrary($0, programCrate: programCrate) ? true : nil })
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
                line: found?.line, isAsync: found?.isAsync, isLibrary: found?.isLibrary)
        }
    }
}
