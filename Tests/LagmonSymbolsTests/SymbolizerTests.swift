import Foundation
import Glibc
import LagmonCore
import LagmonLinux
import Testing

@testable import LagmonSymbols

/// A Swift function of this test module, reached through a C function pointer (an `@objc`-style
/// thunk named after it).
func symbolizerProbe(_ value: Int32) -> Int32 { value &* 3 }

/// Symbolizes addresses of real code in this process: libc, this module, the vDSO.
struct SymbolizerTests {
    static let ownMap: ProcessMemoryMap = ProcessMemoryMap.read(pid: getpid()) ?? ProcessMemoryMap([])

    @Test func libcFunctionThroughDlsym() throws {
        let address = UInt64(UInt(bitPattern: try #require(dlsym(nil, "clock_gettime"))))
        let frame = try #require(Symbolizer().symbolize(stacks: [[address]], map: Self.ownMap).first?.first)
        #expect(frame.symbol == "clock_gettime" || frame.symbol == "__clock_gettime")
        #expect(frame.module == "libc.so.6")
        #expect(frame.address == address)
        let base = try #require(Self.ownMap.module(containing: address)).loadBase
        #expect(frame.offset == address - base)
        // Lines only when the distribution's detached debug file is installed (libc6-dbg).
        let libc = try #require(Self.ownMap.module(containing: address)?.path)
        let image = try #require(ELFImage(path: libc))
        if ELFDebugFileLocator().locate(image, path: libc) != nil {
            #expect(frame.file?.hasSuffix("/clock_gettime.c") == true)
            #expect((frame.line ?? 0) > 0)
        } else {
            #expect(frame.file == nil && frame.line == nil)
        }
    }

    @Test func swiftFunctionThroughACFunctionPointer() throws {
        let pointer: @convention(c) (Int32) -> Int32 = symbolizerProbe
        let address = UInt64(UInt(bitPattern: unsafeBitCast(pointer, to: UnsafeRawPointer.self)))
        let frame = try #require(Symbolizer().symbolize(stacks: [[address]], map: Self.ownMap).first?.first)
        // The pointer is the C-convention thunk Swift emits for the function; it is compiler
        // generated, so it has a name but no source line.
        #expect(frame.symbol == "@objc symbolizerProbe(_:)")
        #expect(frame.module == Self.ownExecutableName)
        #expect(frame.line == nil)
    }

    @Test func swiftFramesOfThisTestHaveSimplifiedNamesAndLines() throws {
        let (stack, line) = Self.captureStack()
        let frames = try #require(Symbolizer().symbolize(stacks: [stack], map: Self.ownMap).first)
        let frame = try #require(frames.first { $0.symbol?.contains("captureStack") == true })
        #expect(frame.symbol == "static SymbolizerTests.captureStack()")
        #expect(frame.module == Self.ownExecutableName)
        #expect(frame.file?.hasSuffix("/Tests/LagmonSymbolsTests/SymbolizerTests.swift") == true)
        #expect(frame.line == line)
        // Its caller, this test, is the next frame (looked up at `address - 1`, inside the call).
        let index = try #require(frames.firstIndex(of: frame))
        #expect(frames[index + 1].symbol == "SymbolizerTests.swiftFramesOfThisTestHaveSimplifiedNamesAndLines()")
    }

    @inline(never)
    static func captureStack() -> ([UInt64], Int) {
        (Thread.callStackReturnAddresses.map { $0.uint64Value }, #line)
    }

    @Test func unknownAddressesKeepTheirModuleAndOffset() throws {
        let anonymous = try #require(mmap(nil, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        defer { munmap(anonymous, 4096) }
        let inside = UInt64(UInt(bitPattern: anonymous)) + 16
        let map = try #require(ProcessMemoryMap.read(pid: getpid()))
        let frames = try #require(Symbolizer(tool: .none).symbolize(stacks: [[0x1, inside]], map: map).first)
        #expect(
            frames == [
                Frame(symbol: nil, module: "?", offset: 0x1, address: 0x1),
                Frame(symbol: nil, module: "?", offset: inside, address: inside),
            ])
    }

    @Test func vanishedAndDeletedFilesGiveFramesWithoutSymbols() throws {
        let map = ProcessMemoryMap(
            mapsText: """
                7f0000000000-7f0000010000 r-xp 00000000 08:01 7 /nonexistent/libgone.so
                7f0000010000-7f0000020000 r-xp 00000000 08:01 8 /usr/lib/x86_64-linux-gnu/libc.so.6 (deleted)
                """)
        let frames = try #require(
            Symbolizer(tool: .none).symbolize(stacks: [[0x7f00_0000_1234, 0x7f00_0001_5679]], map: map).first)
        #expect(
            frames == [
                Frame(symbol: nil, module: "libgone.so", offset: 0x1234, address: 0x7f00_0000_1234),
                Frame(symbol: nil, module: "libc.so.6", offset: 0x5679, address: 0x7f00_0001_5679),
            ])
    }

    @Test func theVDSOIsReadFromProcessMemory() throws {
        let vdso = try #require(Self.ownMap.mappings.first { $0.path == "[vdso]" })
        let addresses = Array(stride(from: vdso.start, to: vdso.end, by: 16))
        let frames = Symbolizer(tool: .none).symbolize(stacks: addresses.map { [$0] }, map: Self.ownMap, pid: getpid())
            .flatMap { $0 }
        #expect(frames.allSatisfy { $0.module == "[vdso]" })
        #expect(frames.contains { $0.symbol?.contains("clock_gettime") == true })
        // Without a pid there is no memory to read: no names.
        let unnamed = Symbolizer(tool: .none).symbolize(stacks: addresses.map { [$0] }, map: Self.ownMap).flatMap { $0 }
        #expect(unnamed.allSatisfy { $0.symbol == nil })
    }

    @Test func returnAddressesAreLookedUpInsideTheCall() throws {
        // A return address at a function's first byte belongs to a call at the end of the code
        // before it: only the first address (the pc) is looked up as is.
        let start = UInt64(UInt(bitPattern: try #require(dlsym(nil, "clock_gettime"))))
        let frames = try #require(Symbolizer(tool: .none).symbolize(stacks: [[start, start]], map: Self.ownMap).first)
        #expect(frames[0].symbol == "clock_gettime" || frames[0].symbol == "__clock_gettime")
        #expect(frames[1].symbol != frames[0].symbol)
        #expect(frames[1].offset == frames[0].offset)  // the frame still shows the address it was given
    }

    // MARK: The external tool

    @Test func aMissingToolFallsBackToSymbolTableNames() throws {
        let (stack, _) = Self.captureStack()
        let symbolizer = Symbolizer(tool: .llvmSymbolizer(path: "/nonexistent/llvm-symbolizer"))
        let frames = try #require(symbolizer.symbolize(stacks: [stack], map: Self.ownMap).first)
        let frame = try #require(frames.first { $0.symbol == "static SymbolizerTests.captureStack()" })
        #expect(frame.file == nil && frame.line == nil)
        #expect(symbolizer.statistics.toolRuns == 1)
        #expect(symbolizer.statistics.toolFailures == 1)
    }

    @Test func aHangingToolIsKilledAtTheDeadline() throws {
        let script = NSTemporaryDirectory() + "lagmon-hanging-symbolizer-\(getpid())"
        try "#!/bin/sh\nexec sleep 60\n".write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        chmod(script, 0o755)
        let (stack, _) = Self.captureStack()
        let symbolizer = Symbolizer(tool: .llvmSymbolizer(path: script), timeoutNs: 300_000_000)
        let started = MonotonicClock.nowNs()
        let frames = try #require(symbolizer.symbolize(stacks: [stack], map: Self.ownMap).first)
        let elapsedNs = MonotonicClock.nowNs() - started
        #expect(elapsedNs >= 300_000_000 && elapsedNs < 10_000_000_000)  // not the 60 s the tool wanted
        #expect(frames.contains { $0.symbol == "static SymbolizerTests.captureStack()" && $0.line == nil })
        #expect(symbolizer.statistics.toolFailures == 1)
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/addr2line"),
            "addr2line (binutils) is not installed"))
    func addr2lineGivesLinesToo() throws {
        let (stack, line) = Self.captureStack()
        let symbolizer = Symbolizer(tool: .addr2line(path: "/usr/bin/addr2line"))
        let frames = try #require(symbolizer.symbolize(stacks: [stack], map: Self.ownMap).first)
        let frame = try #require(frames.first { $0.symbol == "static SymbolizerTests.captureStack()" })
        #expect(frame.file?.hasSuffix("SymbolizerTests.swift") == true)
        #expect(frame.line == line)
        #expect(symbolizer.statistics.toolFailures == 0)
    }

    @Test func answersAreCachedAcrossCalls() throws {
        let (stack, _) = Self.captureStack()
        let symbolizer = Symbolizer()
        let first = symbolizer.symbolize(stacks: [stack], map: Self.ownMap)
        let afterFirst = symbolizer.statistics
        let second = symbolizer.symbolize(stacks: [stack, stack], map: Self.ownMap)
        #expect(second == [first[0], first[0]])
        #expect(symbolizer.statistics.lookups == afterFirst.lookups)
        #expect(symbolizer.statistics.toolRuns == afterFirst.toolRuns)
        #expect(symbolizer.statistics.addresses == 3 * stack.count)
    }

    @Test func samplesKeepTheirOrder() throws {
        let (stack, _) = Self.captureStack()
        let samples = [stack, [0x1]].enumerated().map { index, addresses in
            StackSample(
                timestampNs: UInt64(index), tid: 1, addresses: addresses, outcome: .complete, pauseNs: 0, unwindNs: 0,
                state: nil)
        }
        let resolved = Symbolizer(tool: .none).symbolize(samples, map: Self.ownMap)
        #expect(resolved.map(\.sample) == samples)
        #expect(resolved.map(\.frames.count) == [stack.count, 1])
        #expect(resolved[1].frames[0].module == "?")
    }

    static var ownExecutableName: String {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return (path as NSString).lastPathComponent
    }
}
