/// A file (or the vDSO) and a virtual address in it: what a lookup is cached by.
struct SymbolizerLookup: Hashable {
    /// The file's path, or `[vdso]`.
    var key: String
    /// The ELF virtual address looked up.
    var address: UInt64
}
