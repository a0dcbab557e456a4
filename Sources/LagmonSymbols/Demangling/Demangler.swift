import Glibc
import LagmonCore

/// Turns linkage names into the names frames show: Swift names through the runtime's
/// `swift_demangle` then `SwiftNameSimplifier`, Rust names (legacy and v0) through `RustSymbol`,
/// C++ names through libstdc++'s `__cxa_demangle`, anything else unchanged. Both functions are looked up with `dlsym` (and declared with C
/// types, their real convention); when one is missing the name stays mangled.
enum Demangler {
    /// The name a frame shows for linkage name `symbol`.
    static func frameName(_ symbol: String) -> String {
        if isSwift(symbol), let full = demangleSwift(symbol) { return SwiftNameSimplifier.simplify(full) }
        // Before C++: Rust's legacy names are Itanium-shaped (with a hash C++ would keep).
        if let rust = RustSymbol.demangle(symbol) { return rust.name }
        if symbol.hasPrefix("_Z"), let full = demangleCxx(symbol) { return full }
        return symbol
    }

    /// Whether `symbol` is a Swift async function's part (`SwiftNameSimplifier.isAsync`).
    static func isAsync(_ symbol: String) -> Bool {
        guard isSwift(symbol), let full = demangleSwift(symbol) else { return false }
        return SwiftNameSimplifier.isAsync(full)
    }

    /// The full demangling of a Swift symbol, or nil when it is not one (or no runtime is loaded).
    static func demangleSwift(_ symbol: String) -> String? {
        guard let swiftDemangle = Functions.swiftDemangle else { return nil }
        return symbol.withCString { name in
            // Flags must be 0; a nil buffer makes the runtime malloc the result.
            guard let result = swiftDemangle(name, strlen(name), nil, nil, 0) else { return nil }
            defer { free(result) }
            // A bare prefix (`$s`) comes back unchanged: not a demangling.
            let text = String(cString: result)
            return text == symbol ? nil : text
        }
    }

    /// The demangling of an Itanium C++ symbol, or nil when it is not one (or libstdc++ is absent).
    static func demangleCxx(_ symbol: String) -> String? {
        guard let cxaDemangle = Functions.cxaDemangle else { return nil }
        var status: Int32 = 0
        guard let result = cxaDemangle(symbol, nil, nil, &status) else { return nil }
        defer { free(result) }
        return status == 0 ? String(cString: result) : nil
    }

    /// Swift 5+ (`$s`), Swift 4 (`$S`, `_T0`), embedded (`$e`), and their Darwin-style `_` spellings.
    private static func isSwift(_ symbol: String) -> Bool {
        ["$s", "$S", "$e", "_$s", "_$S", "_$e", "_T0"].contains { symbol.hasPrefix($0) }
    }

    /// The two C entry points, resolved once.
    private enum Functions {
        /// `char *swift_demangle(const char *, size_t, char *, size_t *, uint32_t)` in libswiftCore.
        typealias SwiftDemangle =
            @convention(c) (
                UnsafePointer<CChar>?, Int, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?, UInt32
            ) -> UnsafeMutablePointer<CChar>?
        /// `char *__cxa_demangle(const char *, char *, size_t *, int *)` in libstdc++.
        typealias CxaDemangle =
            @convention(c) (
                UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?,
                UnsafeMutablePointer<Int32>?
            ) -> UnsafeMutablePointer<CChar>?

        // Resolved on first use; C function pointers are Sendable.
        static let swiftDemangle: SwiftDemangle? = resolve("swift_demangle", library: nil)
        static let cxaDemangle: CxaDemangle? = resolve("__cxa_demangle", library: "libstdc++.so.6")

        /// `name` from the loaded images or, failing that, from `library` (loaded if needed: a Swift
        /// program on Linux already has libstdc++, through Foundation).
        private static func resolve<Function>(_ name: String, library: String?) -> Function? {
            var symbol = dlsym(nil, name)  // RTLD_DEFAULT
            if symbol == nil, let library, let handle = dlopen(library, RTLD_LAZY | RTLD_LOCAL) {
                // The handle stays open for the life of the process, like the function it gives.
                symbol = dlsym(handle, name)
            }
            return symbol.map { unsafeBitCast($0, to: Function.self) }
        }
    }
}
