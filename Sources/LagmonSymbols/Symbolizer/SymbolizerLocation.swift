/// Where one stack address lies, before its lookup is answered.
enum SymbolizerLocation {
    /// Nothing to look up: unmapped, anonymous, deleted, unreadable, or outside any segment.
    case bare(address: UInt64, module: String, offset: UInt64)
    /// A lookup in a readable image.
    case image(SymbolizerLookup, address: UInt64, module: String, offset: UInt64)
}
