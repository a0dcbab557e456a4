import Testing

@testable import LagmonSymbols

/// Rust's two manglings, on symbols rustc 1.95 made for the Rust fixture (the expected names are
/// what llvm-cxxfilt and rustc-demangle's alternate form print), and on hostile input.
struct RustDemanglerTests {
    @Test(
        arguments: [
            (
                "_RNvCs6B4ikCHKzQR_10rust_loops21spin_in_plain_rust_fn", "rust_loops::spin_in_plain_rust_fn",
                "rust_loops"
            ),
            (
                "_RNCNvCs6B4ikCHKzQR_10rust_loops19run_closure_handler0B3_",
                "rust_loops::run_closure_handler::{closure#0}", "rust_loops"
            ),
            (
                "_RINvNtCsgEmfK2I1SDS_4core4hint9black_boxNCNvCs6B4ikCHKzQR_10rust_loops19run_closure_handler0EBG_",
                "core::hint::black_box::<rust_loops::run_closure_handler::{closure#0}>", "core"
            ),
            (
                "_RNSNvYNCINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuE0INtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceuE9call_once6vtableCs6B4ikCHKzQR_10rust_loops",
                "<std::rt::lang_start<()>::{closure#0} as core::ops::function::FnOnce<()>>::call_once::{shim:vtable#0}",
                "core"
            ),
            (
                "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc5boxed3BoxDNtNtB4_5error5ErrorNtNtB4_6marker4SyncNtB1B_4SendEL_EECs6B4ikCHKzQR_10rust_loops",
                "core::ptr::drop_in_place::<alloc::boxed::Box<dyn core::error::Error + core::marker::Sync + core::marker::Send>>",
                "core"
            ),
            (
                "_RINvMs2_NtCsgEmfK2I1SDS_4core3fmtNtB6_9Arguments3newKj11_Kj3_ECs6B4ikCHKzQR_10rust_loops",
                "<core::fmt::Arguments>::new::<17, 3>", "core"
            ),
            (
                "_RNCNvXs1_NtNtNtCsjrHSEGnQ3l9_3std2io5error14repr_bitpackedNtB7_4ReprNtNtNtCsgEmfK2I1SDS_4core3ops4drop4Drop4drop0Cs6B4ikCHKzQR_10rust_loops",
                "<std::io::error::repr_bitpacked::Repr as core::ops::drop::Drop>::drop::{closure#0}", "std"
            ),
            // A trait impl in the program's crate for its own type: the impl's module says whose.
            (
                "_RNvXCs4fqI2P2rA04_5myappNtB2_4ConnNtNtNtCsgEmfK2I1SDS_4core6future6future6Future4poll",
                "<myapp::Conn as core::future::future::Future>::poll", "myapp"
            ),
            // References, slices, arrays, tuples, function pointers, a vendor suffix.
            (
                "_RINvCs1234_5myapp1fRShQAmj4_TlcEFKCPaEuE.llvm.123",
                "myapp::f::<&[u8], &mut [u32; 4], (i32, char), extern \"C\" fn(*const i8)>", "myapp"
            ),
            // Const generics: bool, char, negative integers, a placeholder.
            ("_RINvC5myapp1gKb1_Kc78_Kanf_KpE", "myapp::g::<true, 'x', -15, _>", "myapp"),
            // for<'a> fn(&'a u8) -> &'a u8.
            ("_RINvC5myapp1hFG_RL0_hERL0_hE", "myapp::h::<for<'a> fn(&'a u8) -> &'a u8>", "myapp"),
            // A Punycode identifier is shown undecoded.
            ("_RNvC5myappu7gdkvbqd", "myapp::punycode{gdkvbqd}", "myapp"),
        ] as [(String, String, String)])
    func v0Symbols(symbol: String, name: String, crate: String) {
        #expect(RustSymbol.demangle(symbol) == RustSymbol(name: name, crate: crate))
    }

    @Test(
        arguments: [
            (
                "_ZN10rust_loops21spin_in_plain_rust_fn17h54347aff8a3456eeE", "rust_loops::spin_in_plain_rust_fn",
                "rust_loops"
            ),
            (
                "_ZN10rust_loops19run_closure_handler28_$u7b$$u7b$closure$u7d$$u7d$17h9b9bcd0639b4b9aeE",
                "rust_loops::run_closure_handler::{{closure}}", "rust_loops"
            ),
            (
                "_ZN47_$LT$u64$u20$as$u20$core..iter..range..Step$GT$17forward_unchecked17h4d8f3963e80eeea1E",
                "<u64 as core::iter::range::Step>::forward_unchecked", "core"
            ),
            (
                "_ZN60_$LT$myapp..Conn$u20$as$u20$core..future..future..Future$GT$4poll17h0123456789abcdefE",
                "<myapp::Conn as core::future::future::Future>::poll", "myapp"
            ),
            (
                "_ZN4core3ptr44drop_in_place$LT$$RF$mut$u20$myapp..Conn$GT$17h0123456789abcdefE.llvm.42",
                "core::ptr::drop_in_place<&mut myapp::Conn>", "core"
            ),
        ] as [(String, String, String)])
    func legacySymbols(symbol: String, name: String, crate: String) {
        #expect(RustSymbol.demangle(symbol) == RustSymbol(name: name, crate: crate))
    }

    @Test func framesShowRustNamesWithoutHashes() {
        #expect(Demangler.frameName("_ZN10rust_loops4main17h55d14f08b11bdb55E") == "rust_loops::main")
        #expect(Demangler.frameName("_RNvCs6B4ikCHKzQR_10rust_loops4main") == "rust_loops::main")
        // C++ without a Rust hash stays C++.
        #expect(Demangler.frameName("_ZN3foo3barEv") == "foo::bar()")
    }

    @Test(
        arguments: [
            "", "_R", "_RN", "_RC", "_RNvC", "_RNvCs6B4ikCHKzQR_10rust_loops21spin_in_plain",  // truncated
            "_RNvC5myapp0",  // an empty name in a value namespace
            "_RNvC99myapp4main",  // a length past the end
            "_RB_", "_RNvB2_4main", "_RNvCs_5myappB9_",  // back references to themselves or ahead
            "_RINvC5myapp1fKb2_E", "_RINvC5myapp1fKc110000_E", "_RINvC5myapp1fKe0_E",  // bad constants
            // Junk after the name, an encoding version, a disambiguator past 64 bits.
            "_RNvC5myapp4main!", "_R0NvC5myapp4main", "_RNvCszzzzzzzzzzzzzzzzzzzzzz_5myapp4main",
            "_RINvC5myapp1fRL1_hE",  // a lifetime no binder bound
            "_ZN5myapp4mainE", "_ZN5myapp4main17hnothexnothexnothE", "_ZN5myapp$XX$17h0123456789abcdefE",
            "_ZN999999999999999999999999myapp17h0123456789abcdefE",
        ])
    func malformedSymbolsAreNotRust(symbol: String) {
        #expect(RustSymbol.demangle(symbol) == nil)
    }

    @Test func deepNestingIsBounded() {
        let deep = "_R" + String(repeating: "NvNv", count: 50_000) + "C5myapp" + String(repeating: "1f", count: 100_000)
        #expect(RustSymbol.demangle(deep) == nil)
        let types = "_RINvC5myapp1f" + String(repeating: "S", count: 100_000) + "hE"
        #expect(RustSymbol.demangle(types) == nil)
    }

    /// Each tuple refers back to the previous one twice: 40 levels would print 2^40 `u8`s.
    @Test func backReferencesCannotBlowUp() {
        var symbol = "INvC5myapp1fTh"
        var previous = symbol.utf8.count - 2  // where the first tuple, `ThE`, starts
        symbol += "E"
        for _ in 0..<40 {
            let start = symbol.utf8.count
            symbol += "TB\(Self.base62(previous))B\(Self.base62(previous))E"
            previous = start
        }
        symbol += "E"
        #expect(RustSymbol.demangle("_R" + symbol) == nil)
    }

    /// The base-62 number of a back reference to `position`.
    private static func base62(_ position: Int) -> String {
        guard position > 0 else { return "_" }
        let digits = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var value = position - 1
        var text = ""
        repeat {
            text = String(digits[value % 62]) + text
            value /= 62
        } while value > 0
        return text + "_"
    }
}
