import LagmonCore
import Testing

/// Inputs are real `swift_demangle` output from lagmon-demo, Foundation, the standard library and
/// swift-argument-parser; expectations follow `swift demangle --simplified` except where noted.
struct SwiftNameSimplifierTests {
    @Test(
        arguments: [
            // The demo's stall, its closure and its partial-apply forwarder.
            (
                "static lagmon_demo.ImageDecoder.decodeImage(_: FoundationEssentials.Data, row: Swift.Int, "
                    + "budgetNs: Swift.UInt64) -> lagmon_demo.Thumbnail",
                "static ImageDecoder.decodeImage(_:row:budgetNs:)"
            ),
            (
                "closure #1 (Swift.UnsafeRawBufferPointer) -> () in static lagmon_demo.ImageDecoder.decodeImage(_: "
                    + "FoundationEssentials.Data, row: Swift.Int, budgetNs: Swift.UInt64) -> lagmon_demo.Thumbnail",
                "closure #1 in static ImageDecoder.decodeImage(_:row:budgetNs:)"
            ),
            (
                "partial apply forwarder for closure #1 @Sendable (Foundation.Timer) -> () in "
                    + "lagmon_demo.ImageListController.scroll(passes: Swift.Int, then: @Sendable () -> ()) -> ()",
                "partial apply for closure #1 in ImageListController.scroll(passes:then:)"
            ),
            (
                "closure #1 @Sendable (Foundation.Timer) -> () in lagmon_demo.DemoRun.start() -> ()",
                "closure #1 in DemoRun.start()"
            ),
            // Private discriminators, with and without a name.
            (
                "lagmon_demo.DemoRun.(begin in _4967B3A79B0F535F1DFAE7EF3C1DDF73)() -> ()",
                "DemoRun.begin()"
            ),
            (
                "static lagmon_demo.ImageDecoder.(unfilterPass in _1EF443B1626FAF77DF24CDEC9DDE4461)"
                    + "(Swift.UnsafeRawBufferPointer) -> Swift.UInt64",
                "static ImageDecoder.unfilterPass(_:)"
            ),
            (
                "closure #2 () -> lagmon_demo.Thumbnail in lagmon_demo.ImageListController.(thumbnail in "
                    + "_8E897EFA2C004B11E722D5E3B626728E)(row: Swift.Int) -> lagmon_demo.Thumbnail",
                "closure #2 in ImageListController.thumbnail(row:)"
            ),
            (
                "partial apply forwarder for closure #1 @Sendable () -> Self in Foundation.NSNumber.(in "
                    + "_7806555C92853171A57DFBE83EFE8CC1).init(bytes: Swift.UnsafeRawPointer, numberType: "
                    + "__C.CFNumberType) -> Foundation.NSNumber with unmangled suffix \".14\"",
                "partial apply for closure #1 in NSNumber.init(bytes:numberType:)"
            ),
            // Plain functions, effects, accessors.
            ("lagmon_demo.monotonicNs() -> Swift.UInt64", "monotonicNs()"),
            ("lagmon_demo.DemoCommand.run() throws -> ()", "DemoCommand.run()"),
            ("Foundation.RunLoop.run(until: FoundationEssentials.Date) -> ()", "RunLoop.run(until:)"),
            (
                "ArgumentParser.CommandParser.parse(arguments: [Swift.String]) async "
                    + "throws(ArgumentParser.CommandError) -> ArgumentParser.ParsableCommand",
                "CommandParser.parse(arguments:)"
            ),
            (
                "lagmon_demo.ImageListController.(shown in _8E897EFA2C004B11E722D5E3B626728E).setter : Swift.Int",
                "ImageListController.shown.setter"
            ),
            ("Foundation.NSDictionary.subscript.getter : (Any) -> Any?", "NSDictionary.subscript.getter"),
            (
                "lagmon_demo.ImageListController.__allocating_init(store: lagmon_demo.ImageStore, log: "
                    + "lagmon_demo.TruthLog, loader: lagmon_demo.ImageListController.Loader) -> "
                    + "lagmon_demo.ImageListController",
                "ImageListController.__allocating_init(store:log:loader:)"
            ),
            // Generic functions keep their parameters, lose their requirements.
            (
                "FoundationEssentials.__DataStorage.withUnsafeBytes<A>(in: Swift.Range<Swift.Int>, apply: "
                    + "(Swift.UnsafeRawBufferPointer) throws -> A) throws -> A",
                "__DataStorage.withUnsafeBytes<A>(in:apply:)"
            ),
            ("Swift.abs<A where A: Swift.Comparable, A: Swift.SignedNumeric>(A) -> A", "abs<A>(_:)"),
            (
                "static (extension in ArgumentParser):ArgumentParser.ParsableCommand.main([Swift.String]?) -> ()",
                "static ParsableCommand.main(_:)"
            ),
            // Specializations reduce to what they specialize (swift prints `specialized X`).
            (
                "generic specialization <FoundationEssentials.Data> of Foundation.FileHandle.write<A where A: "
                    + "FoundationEssentials.DataProtocol>(contentsOf: A) throws -> ()",
                "FileHandle.write<A>(contentsOf:)"
            ),
            (
                "function signature specialization <Arg[2] = [Constant Propagated Struct : Swift.Int32][Constant "
                    + "Propagated Integer : 0]> of closure #1 (Swift.UnsafePointer<Swift.Int8>?) -> Swift.Int32 in "
                    + "static Foundation.FileHandle._openFileDescriptorForURL(_: FoundationEssentials.URL, flags: "
                    + "Swift.Int32, reading: Swift.Bool) throws -> Swift.Int32",
                "closure #1 in static FileHandle._openFileDescriptorForURL(_:flags:reading:)"
            ),
            // The demangler leaves `[Closure Propagated : …, Argument Types : [T]>` unbalanced.
            (
                "function signature specialization <Arg[3] = Owned To Guaranteed> of function signature "
                    + "specialization <Arg[2] = [Closure Propagated : $sSiSpy10Foundation8ObjCBoolVGIgyy_SiADytIegnyr_TR, "
                    + "Argument Types : [@callee_guaranteed (@unowned Swift.Int) -> ()]> of generic specialization "
                    + "<Swift.Int, ()> of Foundation.NSIndexSet._enumerateWithOptions<A, B>(_: "
                    + "Foundation.NSEnumerationOptions, range: Foundation._NSRange) -> Swift.Int?",
                "NSIndexSet._enumerateWithOptions<A, B>(_:range:)"
            ),
            (
                "generic partial specialization <serialized, Signature = @escaping @convention(thin) <A><A1 where "
                    + "A: Swift.FixedWidthInteger, A1 == Swift.SystemRandomNumberGenerator> (@in_guaranteed "
                    + "Swift.ClosedRange<A>, @inout Swift.SystemRandomNumberGenerator) -> (@out A)> of static "
                    + "(extension in Swift):Swift.FixedWidthInteger.random<A where A1: Swift.RandomNumberGenerator>"
                    + "(in: Swift.ClosedRange<A>, using: inout A1) -> A",
                "static FixedWidthInteger.random<A>(in:using:)"
            ),
            ("merged Foundation.FileHandle.synchronizeFile() -> ()", "FileHandle.synchronizeFile()"),
            (
                "(1) suspend resume partial function for static (extension in ArgumentParser):"
                    + "ArgumentParser.AsyncMainProtocol.main() async -> ()",
                "static AsyncMainProtocol.main()"
            ),
            // Witnesses and thunks.
            (
                "protocol witness for ArgumentParser.ParsableCommand.run() throws -> () in conformance "
                    + "lagmon_demo.DemoCommand : ArgumentParser.ParsableCommand in lagmon_demo",
                "protocol witness for ParsableCommand.run() in conformance DemoCommand"
            ),
            (
                "protocol witness for static Swift.Comparable.< infix(A, A) -> Swift.Bool in conformance "
                    + "Swift.Int : Swift.Comparable in Swift",
                "protocol witness for static Comparable.< infix(_:_:) in conformance Int"
            ),
            (
                "@objc Foundation.__NSFireTimer(_: __C.CFRunLoopTimerRef?, info: Swift.UnsafeMutableRawPointer?) -> ()",
                "@objc __NSFireTimer(_:info:)"
            ),
            (
                "reabstraction thunk helper from @escaping @callee_guaranteed (@guaranteed ArgumentParser.InputOrigin) "
                    + "-> (@error @owned Swift.Error) to @escaping @callee_guaranteed (@in_guaranteed "
                    + "ArgumentParser.InputOrigin) -> (@error @owned Swift.Error)",
                "thunk for @escaping @callee_guaranteed (@guaranteed InputOrigin) -> (@error @owned Error)"
            ),
            (
                "dispatch thunk of Swift.BinaryFloatingPoint.significandWidth.getter : Swift.Int",
                "dispatch thunk of BinaryFloatingPoint.significandWidth.getter"
            ),
            // Operators: `<` and `>` are not brackets there.
            ("static Swift.Int.< infix(Swift.Int, Swift.Int) -> Swift.Bool", "static Int.< infix(_:_:)"),
            ("static Swift.Int.>> infix(Swift.Int, Swift.Int) -> Swift.Int", "static Int.>> infix(_:_:)"),
            (
                "static Swift.Comparable...< infix(A, A) -> Swift.Range<A>",
                "static Comparable...< infix(_:_:)"
            ),
            // Local functions, `$defer`, nested closures and local types.
            (
                "fail #1 (code: FoundationEssentials.CocoaError.Code, _: Swift.String) -> () in "
                    + "Foundation.NSCharacterSet.init(coder: Foundation.NSCoder) -> Foundation.NSCharacterSet?",
                "fail #1 (code:_:) in NSCharacterSet.init(coder:)"
            ),
            (
                "$defer #2 () -> () in ArgumentParser.LenientParser.parse() throws -> ArgumentParser.ParsedValues",
                "$defer #2 () in LenientParser.parse()"
            ),
            (
                "closure #1 @Swift.MainActor @Sendable () -> () in closure #1 @Sendable () -> () in "
                    + "Foundation.FileHandle.readToEndOfFileInBackgroundAndNotify(forModes: [Foundation.RunLoop.Mode]?) -> ()",
                "closure #1 in closure #1 in FileHandle.readToEndOfFileInBackgroundAndNotify(forModes:)"
            ),
            (
                "availableData.getter : FoundationEssentials.Data in NullDevice #1 in closure #1 () -> "
                    + "Foundation.FileHandle in variable initialization expression of static "
                    + "Foundation.FileHandle._nulldeviceFileHandle : Foundation.FileHandle",
                "availableData.getter in NullDevice #1 in closure #1 in variable initialization expression of "
                    + "static FileHandle._nulldeviceFileHandle"
            ),
            // A closure in top-level code: its context is the bare module.
            ("@objc closure #1 (Swift.Int32) -> Swift.Int32 in m", "@objc closure #1 in m"),
            // Types stay types (no labels for a tuple that follows no name).
            (
                "outlined destroy of ([ArgumentParserToolInfo.ArgumentInfoV0]?, [Swift.Int]?)",
                "outlined destroy of ([ArgumentInfoV0]?, [Int]?)"
            ),
            ("Swift.Dictionary.init() -> [A : B]", "Dictionary.init()"),
        ] as [(String, String)])
    func simplifiesRealDemanglings(demangled: String, simplified: String) {
        #expect(SwiftNameSimplifier.simplify(demangled) == simplified)
    }

    /// Text that is not a Swift demangling (C names, pseudo-names) comes back as it went in.
    @Test(arguments: ["", "main", "lagmon_demo_main", "__CFRunLoopRun", "?"])
    func leavesOtherNamesAlone(name: String) {
        #expect(SwiftNameSimplifier.simplify(name) == name)
    }

    /// Hostile text never traps and is left alone where it matches nothing.
    @Test(
        arguments: [
            ("f(", "f("), ("f)", "f)"), ("<<<", "<<<"), (">>>", ">>>"), ("->", "->"), (" in ", " in "),
            ("(in _)", "(in _)"), ("(x in _XYZ)", "(x in _XYZ)"), ("(extension in M)", "(extension in M)"),
            ("a.b.(", "b.("), ("closure #", "closure #"), ("closure #1 (", "closure #1"), ("x : ", "x"),
            ("$defer #", "$defer #"), ("generic specialization <", "generic specialization <"),
            ("generic specialization <A> of", "generic specialization <A> of"),
            ("reabstraction thunk helper from", "reabstraction thunk helper from"),
            ("(1) suspend resume partial function for ", ""),
        ] as [(String, String)])
    func survivesMalformedText(text: String, simplified: String) {
        #expect(SwiftNameSimplifier.simplify(text) == simplified)
    }

    @Test(arguments: [
        (
            "(1) await resume partial function for lagmon_concurrency_fixture.mainActorHandlesRequest() async -> Swift.UInt64",
            true
        ),
        ("(2) suspend resume partial function for closure #1 () async -> () in static M.T.main() async -> ()", true),
        ("static M.T.main() async throws -> ()", true),
        ("closure #1 () async -> () in M.f() -> ()", true),
        ("M.f(_: () async -> ()) -> ()", false),
        ("closure #1 () -> () in M.f() async -> ()", false),
        ("M.poolJobBlocksThread() -> Swift.UInt64", false),
    ])
    func asyncFunctionPartsAreMarked(demangled: String, isAsync: Bool) {
        #expect(SwiftNameSimplifier.isAsync(demangled) == isAsync)
    }
}
