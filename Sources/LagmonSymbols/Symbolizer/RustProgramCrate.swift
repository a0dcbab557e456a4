/// Tells a Rust program's own code from the libraries compiled into it, as site-packages tell a
/// Python program's from its dependencies: Rust links every crate into one executable, so the
/// module cannot say, the crate can.
///
/// The program's crate is the crate of its `main`: rustc's C `main` hands the binary crate's root
/// function `<crate>::main` to `std::rt::lang_start`, and a binary crate's `fn main` must sit at
/// its root, so the executable's symbol table holds `<crate>::main` for exactly the program's
/// crate (`#[tokio::main]` keeps that function too, and puts the body in a closure of it).
/// `std`, `core`, `alloc` (and Rust's other own crates) are always libraries; any other crate is
/// one in an image with a known program crate that is not that crate. In an image without a
/// `main` (a Rust shared library) only Rust's own crates count as libraries.
enum RustProgramCrate {
    /// The crate of the `<crate>::main` in `symbols`; nil when there is none. Should a library
    /// also have a root `main`, the crate named like the executable (`my-app` → `my_app`) wins,
    /// and without one the program's crate stays unknown.
    static func find(in symbols: ELFSymbolTable, executableName: String) -> String? {
        let crates = Set(
            symbols.names(where: isRootMainCandidate).compactMap { name -> String? in
                guard let symbol = RustSymbol.demangle(name), symbol.name == symbol.crate + "::main" else { return nil }
                return RustSymbol.standardCrates.contains(symbol.crate) ? nil : symbol.crate
            })
        if crates.count == 1 { return crates.first }
        let named = String(executableName.map { $0 == "-" ? "_" : $0 })
        return crates.contains(named) ? named : nil
    }

    /// Whether `symbol` is library code for a program whose crate is `programCrate`.
    static func isLibrary(_ symbol: RustSymbol, programCrate: String?) -> Bool {
        if RustSymbol.standardCrates.contains(symbol.crate) { return true }
        guard let programCrate, !symbol.crate.isEmpty else { return false }
        return symbol.crate != programCrate
    }

    /// A cheap test on the mangled bytes: v0 `_R…4main`, legacy `_ZN…4main17h<16 hex>E`.
    private static func isRootMainCandidate(_ name: ArraySlice<UInt8>) -> Bool {
        if name.starts(with: v0Prefix) { return name.count > 7 && name.suffix(5).elementsEqual(v0Suffix) }
        guard name.starts(with: legacyPrefix), name.count > 30 else { return false }
        return name.dropLast(18).suffix(7).elementsEqual(legacyMain)
    }

    private static let v0Prefix = Array("_RNvC".utf8)
    private static let v0Suffix = Array("4main".utf8)
    private static let legacyPrefix = Array("_ZN".utf8)
    private static let legacyMain = Array("4main17".utf8)
}
