/// A demangled Rust symbol: the name frames show and the crate its code belongs to.
///
/// Both of rustc's manglings are read: legacy (`_ZN…17h<hash>E`, Itanium-shaped, the default of
/// stable Rust) and v0 (`_R…`, RFC 2603, `-C symbol-mangling-version=v0`). Names carry no hashes
/// or crate disambiguators, as `rustc-demangle`'s alternate form prints them:
/// `myapp::handler::{closure#0}`, `<myapp::Conn as core::future::future::Future>::poll`.
struct RustSymbol: Equatable, Sendable {
    /// The demangled path, without hashes.
    var name: String
    /// The crate the code belongs to: the crate of the path's root, of an impl's own module for
    /// `impl` blocks (v0), or of the implementing type (legacy, which does not say where the impl
    /// is); empty when the symbol does not say.
    var crate: String

    /// The Rust symbol `symbol`, or nil when it is not one rustc makes (or is malformed).
    static func demangle(_ symbol: String) -> RustSymbol? {
        // Darwin-style names have one more leading underscore; a suffix LLVM adds after the
        // mangled name (`.llvm.1234`) is left to each scheme.
        var bytes = Array(symbol.utf8)
        if bytes.first == UInt8(ascii: "_"), bytes.count > 2, bytes[1] == UInt8(ascii: "_") { bytes.removeFirst() }
        if bytes.starts(with: Array("_R".utf8)) { return RustV0Demangler.demangle(Array(bytes[2...])) }
        if bytes.starts(with: Array("_ZN".utf8)) {
            return RustLegacyDemangler.demangle(Array(bytes[3...]))
        }
        return nil
    }

    /// The crates of Rust's own libraries, always library code.
    static let standardCrates: Set<String> = [
        "std", "core", "alloc", "proc_macro", "test", "panic_unwind", "panic_abort",
    ]
}
