import Foundation
import Glibc
import LagmonCore
import LagmonLinux
import LagmonTestSupport
import Testing

@testable import LagmonSymbols

struct ELFImageTests {
    static let ownMap: ProcessMemoryMap = ProcessMemoryMap.read(pid: getpid()) ?? ProcessMemoryMap([])

    @Test func readsThisTestExecutable() throws {
        let image = try #require(ELFImage(path: "/proc/self/exe"))
        #expect(image.kind == .sharedObject)  // a position-independent executable
        #expect(image.hasLineTables)  // the debug build
        #expect(image.symbols.count > 1000)
        #expect(!image.segments.segments.isEmpty)
    }

    @Test func mapsRuntimeAddressesToVirtualAddresses() throws {
        // libc's text is its second mapping, at file offset 0x26000 or so: the formula must use
        // the segment holding that offset.
        let address = UInt64(UInt(bitPattern: try #require(dlsym(nil, "clock_gettime"))))
        let module = try #require(Self.ownMap.module(containing: address))
        let path = try #require(module.path)
        let image = try #require(ELFImage(path: path))
        let virtualAddress = try #require(image.virtualAddress(of: address, in: module.mapping))
        #expect(virtualAddress == address - module.loadBase)  // glibc: first segment at 0, p_vaddr == p_offset
        let symbol = try #require(image.symbols.symbol(containing: virtualAddress))
        #expect(symbol.start == virtualAddress)
        #expect(symbol.name == "clock_gettime" || symbol.name == "__clock_gettime")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/nm"), "nm (binutils) is not installed"))
    func aliasesKeepTheNameThatHasASize() throws {
        // The demo's `main` is a size-0 alias of `lagmon_demo_main` (13 bytes): an address inside
        // the function must still find it.
        let image = try #require(ELFImage(path: Binaries.directory + "/lagmon-demo"))
        let main = try #require(image.symbols.symbol(containing: Self.demoMainAddress()))
        #expect(main.name == "lagmon_demo_main")
        #expect(image.symbols.symbol(containing: main.start + 8)?.name == "lagmon_demo_main")
    }

    /// `main`'s address in the demo, as binutils' `nm` lists it.
    private static func demoMainAddress() throws -> UInt64 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nm")
        process.arguments = ["--defined-only", Binaries.directory + "/lagmon-demo"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let line = try #require(output.split(separator: "\n").first { $0.hasSuffix(" T main") })
        return try #require(UInt64(line.split(separator: " ")[0], radix: 16))
    }

    @Test(
        arguments: [
            // lld's layout: the RELRO segment starts mid-page (0x1b26a0) at 0x1000 higher addresses;
            // its mapping starts at the page boundary 0x1b2000.
            (0x5000_0000_0000 + 0x800, 0x1b2000, 0x1b3800),
            // The text segment at offset 0 maps one to one.
            (0x5000_0000_0000 + 0x1234, 0, 0x1234),
        ] as [(UInt64, UInt64, UInt64)])
    func usesTheSegmentHoldingTheMappingsOffset(address: UInt64, offset: UInt64, expected: UInt64) {
        let image = Self.image(segments: [
            .init(fileOffset: 0, virtualAddress: 0, fileSize: 0x1b17a8),
            .init(fileOffset: 0x1b26a0, virtualAddress: 0x1b36a0, fileSize: 0x17ee0),
        ])
        let mapping = MemoryMapping(
            start: 0x5000_0000_0000, end: 0x5000_0001_0000, permissions: "r--p", fileOffset: offset, path: "/x")
        #expect(image.virtualAddress(of: address, in: mapping) == expected)
    }

    @Test func anOffsetNoSegmentHoldsHasNoVirtualAddress() {
        let image = Self.image(segments: [.init(fileOffset: 0, virtualAddress: 0, fileSize: 0x1000)])
        let mapping = MemoryMapping(start: 0x10000, end: 0x20000, permissions: "r-xp", fileOffset: 0x8000, path: "/x")
        #expect(image.virtualAddress(of: 0x10010, in: mapping) == nil)
        let inside = MemoryMapping(start: 0x10000, end: 0x20000, permissions: "r-xp", fileOffset: 0, path: "/x")
        #expect(image.virtualAddress(of: 0x30000, in: inside) == nil)  // not in the mapping
    }

    @Test(arguments: ["/nonexistent/libgone.so", "/etc/hostname", "/proc/self", "/dev/null", ""])
    func unreadableOrForeignFilesAreNil(path: String) {
        #expect(ELFImage(path: path) == nil)
    }

    @Test(arguments: [16, 64, 100, 4096])
    func truncatedImagesNeverTrap(length: Int) throws {
        // The first bytes of a real library: a header whose tables point past the end.
        let libc = UInt64(UInt(bitPattern: dlsym(nil, "clock_gettime")))
        let source = try #require(Self.ownMap.module(containing: libc)?.path)
        let contents = try #require(FileManager.default.contents(atPath: source))
        let bytes = contents.prefix(length)
        let path = NSTemporaryDirectory() + "lagmon-truncated-elf-\(getpid())-\(length)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let image = ELFImage(path: path)
        #expect(length < 64 ? image == nil : image?.symbols.count == 0)
    }

    private static func image(segments: [ELFSegments.Segment]) -> ELFImage {
        ELFImage(
            kind: .sharedObject, segments: ELFSegments(isFixedAddress: false, segments: segments), hasLineTables: false,
            buildID: nil, debugLink: nil, symbols: ELFSymbolTable())
    }
}
