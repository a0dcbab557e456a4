import Testing

@testable import LagmonSymbols

struct SymbolizerToolTests {
    @Test(
        arguments: [
            // An explicit choice wins; `none` disables; addr2line is recognised by name.
            (
                ["LAGMON_SYMBOLIZER": "/x/llvm-symbolizer-18", "PATH": "/usr/bin"],
                SymbolizerTool.llvmSymbolizer(path: "/x/llvm-symbolizer-18")
            ),
            (["LAGMON_SYMBOLIZER": "/x/eu-addr2line"], .addr2line(path: "/x/eu-addr2line")),
            (["LAGMON_SYMBOLIZER": "addr2line", "PATH": "/nowhere:/usr/bin"], .addr2line(path: "/usr/bin/addr2line")),
            (
                ["LAGMON_SYMBOLIZER": "llvm-symbolizer-99", "PATH": "/usr/bin"],
                .llvmSymbolizer(path: "llvm-symbolizer-99")
            ),
            (["LAGMON_SYMBOLIZER": "none", "PATH": "/opt/swift/usr/bin"], SymbolizerTool.none),
            // The toolchain's copy next to swift, before one elsewhere on PATH.
            (["PATH": "/usr/bin:/opt/swift/usr/bin"], .llvmSymbolizer(path: "/opt/swift/usr/bin/llvm-symbolizer")),
            (
                ["LAGMON_SYMBOLIZER": "", "PATH": "/opt/swift/usr/bin:/usr/bin"],
                .llvmSymbolizer(path: "/opt/swift/usr/bin/llvm-symbolizer")
            ),
            // No swift: llvm-symbolizer on PATH, else addr2line, else none.
            (["PATH": "/usr/bin"], .llvmSymbolizer(path: "/usr/bin/llvm-symbolizer")),
            (["PATH": "/bin"], .addr2line(path: "/bin/addr2line")),
            (["PATH": "/nowhere"], SymbolizerTool.none),
            ([:], SymbolizerTool.none),
        ] as [([String: String], SymbolizerTool)])
    func locatesTheTool(environment: [String: String], expected: SymbolizerTool) {
        let executables: Set = [
            "/opt/swift/usr/bin/swift", "/opt/swift/usr/bin/llvm-symbolizer", "/usr/bin/llvm-symbolizer",
            "/bin/addr2line", "/usr/bin/addr2line",
        ]
        #expect(SymbolizerTool.locate(environment: environment, isExecutable: executables.contains) == expected)
    }

    @Test func quotesPathsAndRefusesUnquotable() {
        #expect(
            SymbolizerTool.llvmInputLine(path: "/opt/My App/lib", address: 0x1a2b) == "\"/opt/My App/lib\" 0x1a2b\n")
        #expect(SymbolizerTool.llvmInputLine(path: "/tmp/a\"b", address: 1) == nil)
        #expect(SymbolizerTool.llvmInputLine(path: "/tmp/a\nb", address: 1) == nil)
    }

    @Test func parsesLLVMJSONLines() {
        let output = """
            {"Address":"0x15a6b8","ModuleName":"/d","Symbol":[{"Column":14,"Discriminator":0,"FileName":"/s/ImageDecoder.swift","FunctionName":"$s11lagmon_demo1fyyF","Line":17,"StartAddress":"0x15a5f0","StartFileName":"","StartLine":14}]}
            {"Address":"0x3e7219","ModuleName":"/f","Symbol":[{"Column":0,"Discriminator":0,"FileName":"CFRunLoop.c","FunctionName":"__CFRunLoopRun","Line":0,"StartAddress":"0x3e6af0","StartFileName":"","StartLine":0}]}
            {"Address":"0x26100","ModuleName":"/l","Symbol":[{"Column":0,"Discriminator":0,"FileName":"","FunctionName":"","Line":0,"StartAddress":"","StartFileName":"","StartLine":0}]}
            {"Address":"0x10","Error":{"Message":"No such file or directory"},"ModuleName":"/nonexistent"}
            not json
            {"Address":"0x20","ModuleName":"/g","Symbol":[{"FileName":"/<compiler-generated>","FunctionName":"$s1m1gyyFTo","Line":0}]}
            """
        let answers = SymbolizerTool.parseLLVMOutput(Array(output.utf8), count: 8)
        #expect(
            answers == [
                .init(name: "$s11lagmon_demo1fyyF", file: "/s/ImageDecoder.swift", line: 17),
                .init(name: "__CFRunLoopRun", file: nil, line: nil),  // line 0: a file name without a line says nothing
                nil, nil, nil,
                .init(name: "$s1m1gyyFTo", file: nil, line: nil),
                nil, nil,  // the run ended early
            ])
    }

    /// An inline chain, innermost first: the physical function (last) and its own line answer.
    @Test func anInlineChainAnswersWithItsPhysicalFunction() {
        let output = """
            {"Address":"0x1c2e0","ModuleName":"/r","Symbol":[{"FileName":"/rustc/library/core/src/num/uint_macros.rs","FunctionName":"_RNvMNtCs1_4core3numy12wrapping_mul","Line":2533},{"FileName":"/src/main.rs","FunctionName":"_RNCNvCs2_10rust_loops22stall_in_async_handler0B3_","Line":107}]}
            """
        #expect(
            SymbolizerTool.parseLLVMOutput(Array(output.utf8), count: 1) == [
                .init(name: "_RNCNvCs2_10rust_loops22stall_in_async_handler0B3_", file: "/src/main.rs", line: 107)
            ])
    }

    @Test func parsesAddr2lineLinePairs() {
        let output = """
            $s1m22distinctiveGlobalProbeys5Int32VADFTo
            /tmp/cc/main.swift:5
            ??
            ??:0
            clock_gettime
            ??:?
            main
            /src/main.c:12 (discriminator 3)

            """
        let answers = SymbolizerTool.parseAddr2lineOutput(Array(output.utf8), count: 5)
        #expect(
            answers == [
                .init(name: "$s1m22distinctiveGlobalProbeys5Int32VADFTo", file: "/tmp/cc/main.swift", line: 5),
                nil,
                .init(name: "clock_gettime", file: nil, line: nil),
                .init(name: "main", file: "/src/main.c", line: 12),
                nil,
            ])
    }
}
