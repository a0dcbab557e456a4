import Foundation
import LagmonCore
import Testing

struct MemoryMapParserTests {
    private static func mapping(
        _ start: UInt64, _ end: UInt64, _ permissions: String, _ offset: UInt64, _ path: String, _ inode: UInt64 = 0,
        device: UInt64 = 0
    ) -> MemoryMapping {
        MemoryMapping(
            start: start, end: end, permissions: permissions, fileOffset: offset, path: path, inode: inode,
            device: device)
    }

    /// `fe:00` and `08:01`, as `MemoryMapping.device` holds them.
    private static let fe00: UInt64 = 0xfe << 32
    private static let sda1: UInt64 = 8 << 32 | 1

    @Test(
        arguments: [
            (
                "561c8bf09000-561c8c0bb000 r-xp 00000000 fe:00 5367965                    /work/main/.build/debug/lagmon-demo",
                mapping(
                    0x561c_8bf0_9000, 0x561c_8c0b_b000, "r-xp", 0, "/work/main/.build/debug/lagmon-demo", 5_367_965,
                    device: fe00)
            ),
            (
                "7fcd2da6b000-7fcd2dbc1000 r-xp 00026000 fe:00 333151                     /usr/lib/x86_64-linux-gnu/libc.so.6",
                mapping(
                    0x7fcd_2da6_b000, 0x7fcd_2dbc_1000, "r-xp", 0x26000, "/usr/lib/x86_64-linux-gnu/libc.so.6", 333_151,
                    device: fe00)
            ),
            // Anonymous memory: the kernel ends the line after the inode and one space, or not at all.
            (
                "561c8c0d5000-561c8c0e1000 rw-p 00000000 00:00 0 ",
                mapping(0x561c_8c0d_5000, 0x561c_8c0e_1000, "rw-p", 0, "")
            ),
            (
                "561c8c0d5000-561c8c0e1000 rw-p 00000000 00:00 0",
                mapping(0x561c_8c0d_5000, 0x561c_8c0e_1000, "rw-p", 0, "")
            ),
            // Kernel pseudo-paths.
            (
                "7fcd2f6d3000-7fcd2f6d5000 r-xp 00000000 00:00 0                          [vdso]",
                mapping(0x7fcd_2f6d_3000, 0x7fcd_2f6d_5000, "r-xp", 0, "[vdso]")
            ),
            (
                "7ffdd1916000-7ffdd1937000 rw-p 00000000 00:00 0                          [stack]",
                mapping(0x7ffd_d191_6000, 0x7ffd_d193_7000, "rw-p", 0, "[stack]")
            ),
            (
                "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]",
                mapping(0xffff_ffff_ff60_0000, 0xffff_ffff_ff60_1000, "--xp", 0, "[vsyscall]")
            ),
            (
                "7f0000000000-7f0000001000 rw-p 00000000 00:00 0                          [anon:lagmon ring]",
                mapping(0x7f00_0000_0000, 0x7f00_0000_1000, "rw-p", 0, "[anon:lagmon ring]")
            ),
            // Paths with spaces (inside and at the end) and the deleted marker are kept as written.
            (
                "7f0000000000-7f0000002000 r-xp 00001000 08:01 42                         /opt/My App/lib x.so",
                mapping(0x7f00_0000_0000, 0x7f00_0000_2000, "r-xp", 0x1000, "/opt/My App/lib x.so", 42, device: sda1)
            ),
            (
                "7f0000000000-7f0000002000 r-xp 00000000 08:01 42                         /tmp/trailing ",
                mapping(0x7f00_0000_0000, 0x7f00_0000_2000, "r-xp", 0, "/tmp/trailing ", 42, device: sda1)
            ),
            (
                "7f0000000000-7f0000002000 r-xp 00000000 08:01 42                         /tmp/old demo (deleted)",
                mapping(0x7f00_0000_0000, 0x7f00_0000_2000, "r-xp", 0, "/tmp/old demo (deleted)", 42, device: sda1)
            ),
            (
                "7f0000000000-7f0000001000 rw-s 00000000 00:01 7                          /memfd:lagmon-channel (deleted)",
                mapping(0x7f00_0000_0000, 0x7f00_0000_1000, "rw-s", 0, "/memfd:lagmon-channel (deleted)", 7, device: 1)
            ),
            // Short addresses (32-bit style) and upper-case hex parse too.
            (
                "08048000-08049000 r-xp 00000000 08:01 1 /bin/a",
                mapping(0x0804_8000, 0x0804_9000, "r-xp", 0, "/bin/a", 1, device: sda1)
            ),
            (
                "0804A000-0804B000 r--p 0000F000 08:01 1 /bin/a",
                mapping(0x0804_a000, 0x0804_b000, "r--p", 0xf000, "/bin/a", 1, device: sda1)
            ),
        ] as [(String, MemoryMapping)])
    func parsesKernelLines(line: String, expected: MemoryMapping) {
        #expect(MemoryMapParser.parseLine(Substring(line)) == expected)
    }

    @Test(arguments: [
        "",  // empty
        "garbage",
        "7f00-7f10",  // truncated after the range
        "7f00-7f10 r-xp",
        "7f00-7f10 r-xp 00000000",
        "7f00-7f10 r-xp 00000000 08:01",  // no inode
        "7f10-7f00 r-xp 00000000 08:01 1 /bin/a",  // end before start
        "7f00-7f00 r-xp 00000000 08:01 1 /bin/a",  // empty range
        "7f00 7f10 r-xp 00000000 08:01 1 /bin/a",  // no dash
        "7f00-7f10-7f20 r-xp 00000000 08:01 1 /bin/a",
        "-7f10 r-xp 00000000 08:01 1 /bin/a",
        "0x7f00-0x7f10 r-xp 00000000 08:01 1 /bin/a",  // prefixed hex
        "7g00-7f10 r-xp 00000000 08:01 1 /bin/a",  // not hex
        "10000000000000000-10000000000000001 r-xp 00000000 08:01 1 /bin/a",  // over 64 bits
        "7f00-7f10 rx 00000000 08:01 1 /bin/a",  // short permissions
        "7f00-7f10 r-xq 00000000 08:01 1 /bin/a",  // neither private nor shared
        "7f00-7f10 xr-p 00000000 08:01 1 /bin/a",
        "7f00-7f10 r-xp zz 08:01 1 /bin/a",  // bad offset
        "7f00-7f10 r-xp 00000000 0801 1 /bin/a",  // bad device
        "7f00-7f10 r-xp 00000000 08:01 -1 /bin/a",  // bad inode
        "7f00-7f10  r-xp 00000000 08:01 1 /bin/a",  // double space inside the fixed fields
        " 7f00-7f10 r-xp 00000000 08:01 1 /bin/a",  // leading space
    ])
    func rejectsMalformedLines(line: String) {
        #expect(MemoryMapParser.parseLine(Substring(line)) == nil)
    }

    @Test func parsesAWholeFileSkippingBadLinesAndKeepingOrder() {
        let text = """
            00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/dbus-daemon
            this line is garbage
            00651000-00652000 r--p 00051000 08:02 173521      /usr/bin/dbus-daemon

            7f00-7f10 r-x
            00e03000-00e24000 rw-p 00000000 00:00 0           [heap]
            """
        #expect(
            MemoryMapParser.parse(text) == [
                Self.mapping(0x40_0000, 0x45_2000, "r-xp", 0, "/usr/bin/dbus-daemon", 173_521, device: 8 << 32 | 2),
                Self.mapping(
                    0x65_1000, 0x65_2000, "r--p", 0x51000, "/usr/bin/dbus-daemon", 173_521, device: 8 << 32 | 2),
                Self.mapping(0xe0_3000, 0xe2_4000, "rw-p", 0, "[heap]"),
            ])
    }

    @Test func parsesThisProcessesOwnMapsWithoutDroppingALine() throws {
        // The live file, read the way lagmon will: every line is well-formed.
        // Not String(contentsOfFile:): it stops after the first read, one page of the file.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/maps"))
        let text = String(decoding: try #require(try handle.readToEnd()), as: UTF8.self)
        let lines = text.split(separator: "\n")
        let mappings = MemoryMapParser.parse(text)
        #expect(mappings.count == lines.count)
        #expect(mappings.contains { $0.path.hasSuffix("/libc.so.6") && $0.isExecutable })
        #expect(mappings.contains { $0.path == "[stack]" })
    }

    @Test(
        arguments: [
            ("/usr/lib/x86_64-linux-gnu/libc.so.6", true, false, "/usr/lib/x86_64-linux-gnu/libc.so.6", "libc.so.6"),
            ("/tmp/old demo (deleted)", true, true, "/tmp/old demo", "old demo"),
            ("[vdso]", false, false, nil, "[vdso]"),
            ("[anon:lagmon ring]", false, false, nil, "[anon:lagmon ring]"),
            ("", false, false, nil, "?"),
            ("/", true, false, "/", "/"),
        ] as [(String, Bool, Bool, String?, String)])
    func namesModules(path: String, isFile: Bool, isDeleted: Bool, filePath: String?, moduleName: String) {
        let mapping = MemoryMapping(start: 0x1000, end: 0x2000, permissions: "r-xp", fileOffset: 0, path: path)
        #expect(mapping.isFile == isFile)
        #expect(mapping.isDeleted == isDeleted)
        #expect(mapping.filePath == filePath)
        #expect(mapping.moduleName == moduleName)
    }

    @Test(arguments: [("r-xp", true), ("--xp", true), ("r--p", false), ("rw-s", false), ("", false)])
    func readsTheExecuteBit(permissions: String, executable: Bool) {
        let mapping = MemoryMapping(start: 0, end: 1, permissions: permissions, fileOffset: 0, path: "")
        #expect(mapping.isExecutable == executable)
    }
}
