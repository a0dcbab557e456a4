import LagmonCore
import Testing

/// /proc/<pid>/task/<tid>/stack as the kernel writes it, and hostile or broken text.
struct ProcKernelStackTests {
    static func parse(_ text: String) -> [String] { ProcKernelStack.parse(Array(text.utf8)) }

    @Test func aRealStackGivesItsFunctionsInnermostFirst() {
        // Captured on this machine: a write to a frozen ext4 filesystem.
        let text = """
            [<0>] percpu_rwsem_wait+0x10a/0x150
            [<0>] vfs_write+0x3a9/0x470
            [<0>] ksys_write+0x6d/0xf0
            [<0>] do_syscall_64+0x71/0x280
            [<0>] entry_SYSCALL_64_after_hwframe+0x76/0x7e

            """
        #expect(
            Self.parse(text) == [
                "percpu_rwsem_wait", "vfs_write", "ksys_write", "do_syscall_64", "entry_SYSCALL_64_after_hwframe",
            ])
    }

    @Test func symbolsWithModulesAndDotsAreKept() {
        #expect(
            Self.parse("[<0>] fuse_wait_on_page_writeback.part.0+0x21/0x40 [fuse]\n") == [
                "fuse_wait_on_page_writeback.part.0"
            ])
    }

    @Test func brokenOrHostileLinesAreSkipped() {
        #expect(Self.parse("").isEmpty)
        #expect(Self.parse("no brackets here\n[<0>]\n[<0>] \n").isEmpty)
        #expect(Self.parse("[<0>] evil name; rm -rf /+0x1/0x2\n").isEmpty)
        #expect(Self.parse("[<0>] " + String(repeating: "a", count: 300) + "+0x1/0x2\n").isEmpty)
        #expect(Self.parse("[<0>] ok+0x1/0x2\n[<0>] \u{FFFD}bad+0x1\n[<0>] fine\n") == ["ok", "fine"])
        // Truncated mid-line: what is there still counts.
        #expect(Self.parse("[<0>] percpu_rwsem_wait+0x10a/0x150\n[<0>] vfs_wr") == ["percpu_rwsem_wait", "vfs_wr"])
    }

    @Test func atMost64FramesAreKept() {
        let text = String(repeating: "[<0>] f+0x1/0x2\n", count: 200)
        #expect(Self.parse(text).count == ProcKernelStack.maxFrames)
    }
}
