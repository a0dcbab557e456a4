import Testing

@testable import LagmonSymbols

struct DemanglerTests {
    @Test func demanglesSwiftWithTheRuntime() {
        #expect(
            Demangler.demangleSwift(
                "$s11lagmon_demo12ImageDecoderO06decodeC0_3row8budgetNsAA9ThumbnailV20FoundationEssentials4DataV_Sis6UInt64VtFZ"
            )
                == "static lagmon_demo.ImageDecoder.decodeImage(_: FoundationEssentials.Data, row: Swift.Int, "
                + "budgetNs: Swift.UInt64) -> lagmon_demo.Thumbnail")
        #expect(Demangler.demangleSwift("clock_gettime") == nil)
        #expect(Demangler.demangleSwift("$s") == nil)
    }

    @Test func demanglesCxxWithLibstdcxx() {
        #expect(
            Demangler.demangleCxx("_ZNSt6vectorIiSaIiEE9push_backERKi")
                == "std::vector<int, std::allocator<int> >::push_back(int const&)")
        #expect(Demangler.demangleCxx("_Znwm") == "operator new(unsigned long)")
        #expect(Demangler.demangleCxx("_Z") == nil)
        #expect(Demangler.demangleCxx("main") == nil)
    }

    @Test(
        arguments: [
            (
                "$s11lagmon_demo12ImageDecoderO06decodeC0_3row8budgetNsAA9ThumbnailV20FoundationEssentials4DataV_Sis6UInt64VtFZ",
                "static ImageDecoder.decodeImage(_:row:budgetNs:)"
            ),
            (
                "$s11lagmon_demo12ImageDecoderO06decodeC0_3row8budgetNsAA9ThumbnailV20FoundationEssentials4DataV_Sis6UInt64VtFZySWXEfU_",
                "closure #1 in static ImageDecoder.decodeImage(_:row:budgetNs:)"
            ),
            ("$s10Foundation7RunLoopC3run5untily0A10Essentials4DateV_tF", "RunLoop.run(until:)"),
            ("_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back(int const&)"),
            ("__CFRunLoopRun", "__CFRunLoopRun"),
            ("clock_gettime", "clock_gettime"),
            ("$sBroken", "$sBroken"),  // looks Swift, is not: stays as it is
            ("_ZBroken", "_ZBroken"),
            ("", ""),
        ] as [(String, String)])
    func framesShowSimplifiedNames(symbol: String, name: String) {
        #expect(Demangler.frameName(symbol) == name)
    }
}
