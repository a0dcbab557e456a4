import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// A loop whose thread sits in uninterruptible sleep (state D) cannot be stopped, so it has no
/// stack samples; its stall is still diagnosed from /proc: the call, the file behind its
/// descriptor, the wait channel and (as root) the kernel stack. `lagmon run` on the io fixture.
@Suite(.serialized)
struct UninterruptibleIOTests {
    /// The longest stall of `result`, which must be the fixture's ~400 ms in D.
    func dStall(_ result: LagmonResult) throws -> StallReport {
        #expect(result.status == 0)
        let report = try #require(result.report)
        let stall = try #require(report.stalls.max { $0.durationNs < $1.durationNs })
        #expect(stall.thread.tid == report.target.pid)
        #expect(stall.diagnosis.kind == .io, "\(stall.diagnosis.text)")
        return stall
    }

    /// A vfork parent waits in D until its child exits: no file, but the call and kernel stack.
    @Test func aVforkParentIsDiagnosedFromProcWithoutAStack() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.ioFixture, "vfork"])
        let stall = try dStall(result)
        let uninterruptible = try #require(stall.uninterruptible)
        #expect(uninterruptible.syscall == "vfork")
        #expect(uninterruptible.file == nil)
        // Every sample but perhaps the first found it in D, and none could stop it.
        #expect(uninterruptible.samples >= 3, "\(uninterruptible.samples) samples in D")
        #expect(uninterruptible.withoutStack == uninterruptible.samples)
        #expect(uninterruptible.kernelStack?.contains("__do_sys_vfork") == true, "\(uninterruptible)")
        #expect(stall.diagnosis.text.hasPrefix("in uninterruptible I/O in vfork"), "\(stall.diagnosis.text)")
        // The terminal summary shows the diagnosis and the kernel stack, though no stack was sampled.
        #expect(result.lagmonLines.contains { $0.contains("in uninterruptible I/O in vfork") })
        #expect(
            result.lagmonLines.contains {
                $0.contains("kernel stack, innermost first: ") && $0.contains("__do_sys_vfork")
            })
    }

    /// A write to a frozen ext4 filesystem (a loop device the test makes) waits in D in `write`:
    /// the diagnosis names the file behind the descriptor.
    @Test func aWriteToAFrozenFilesystemNamesTheFile() throws {
        let mount = try FrozenFilesystem()
        defer { mount.remove() }
        let result = try LagmonProcess.run(["run", "--", Binaries.ioFixture, "freeze", mount.directory])
        #expect(result.stdout.contains("write blocked "))
        let stall = try dStall(result)
        let path = mount.directory + "/lagmon-io-fixture.data"
        let uninterruptible = try #require(stall.uninterruptible)
        #expect(uninterruptible.syscall == "write")
        #expect(uninterruptible.file == path)
        #expect(uninterruptible.samples >= 3, "\(uninterruptible.samples) samples in D")
        #expect(uninterruptible.kernelStack?.contains("vfs_write") == true, "\(uninterruptible)")
        let fd = try #require(uninterruptible.fd)
        #expect(
            stall.diagnosis.text.hasPrefix("in uninterruptible I/O writing \(path) (fd \(fd)) for "),
            "\(stall.diagnosis.text)")
        #expect(result.lagmonLines.contains { $0.contains("in uninterruptible I/O writing \(path) (fd \(fd))") })
    }
}

/// A loop kept off its CPU: the run-queue share of the stall, and the process that took the CPU.
@Suite(.serialized)
struct CPUThiefTests {
    /// The fixture pins itself to CPU 0 beside a nice -10 spinner (`cpu-thief`) while its loop
    /// spins 400 ms of wall time: the loop waits for the CPU most of the stall.
    @Test func aLoopRobbedOfItsCPUNamesTheRunQueueShareAndTheThief() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.ioFixture, "thief"])
        #expect(result.status == 0)
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("thief pid ") })
        let thief = try #require(Int32(line.dropFirst("thief pid ".count)))
        let report = try #require(result.report)
        let stall = try #require(report.stalls.max { $0.durationNs < $1.durationNs })
        let contention = try #require(stall.contention)
        // The thief's weight at nice -10 is 9.3 times the loop's: the loop waits about 90 %.
        #expect(contention.runQueueShare >= 0.5, "\(contention)")
        #expect(contention.runQueueNs <= contention.spanNs)
        // Other processes may use the other CPU more; the thief is still among the busiest.
        let others = try #require(contention.busiestOthers, "\(contention)")
        let robber = try #require(others.first { $0.pid == thief }, "\(others)")
        #expect(robber.name == "cpu-thief" && robber.cpuNs > 0)
        #expect(others.allSatisfy { $0.pid != report.target.pid })
        // Which kind wins is the samples' vote (a sample lands when the thread got the CPU to
        // stop); a `runqueue` stall's line names the share and the busiest other process.
        #expect(stall.diagnosis.kind == .runqueue || stall.diagnosis.kind == .cpu)
        if stall.diagnosis.kind == .runqueue {
            #expect(
                stall.diagnosis.text.contains("% of it in the run queue, busiest other: "), "\(stall.diagnosis.text)")
        }
    }
}

/// A loop that reads a paged-out file through its mapping: each page is a major fault, and the
/// stall names the file they hit (perf's fault addresses placed in the memory map).
@Suite(.serialized)
struct MajorFaultFileTests {
    @Test func aStallTakingMajorFaultsNamesTheFileTheyHit() throws {
        // The mapping's path as the kernel shows it: the temporary directory resolved.
        let directory = try #require(realpath(NSTemporaryDirectory(), nil))
        defer { free(directory) }
        let file = String(cString: directory) + "/lagmon-test-\(UUID().uuidString)-faults.data"
        defer { unlink(file) }
        let result = try LagmonProcess.run(["run", "--", Binaries.ioFixture, "faults", file])
        #expect(result.status == 0)
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("major faults ") })
        let faults = try #require(UInt64(line.dropFirst("major faults ".count)))
        guard faults >= 50 else {
            try Test.cancel("MADV_PAGEOUT left the pages of \(file) resident (\(faults) major faults)")
        }
        let report = try #require(result.report)
        let stall = try #require(report.stalls.max { $0.durationNs < $1.durationNs })
        #expect(stall.durationNs >= 300_000_000, "\(stall.durationNs)")
        let contention = try #require(stall.contention, "\(stall)")
        #expect(contention.majorFaultFilesUnavailable == nil)
        // perf counts where the fixture's getrusage does, over part of the same loop iteration.
        let recorded = try #require(contention.majorFaultsRecorded)
        #expect(recorded > 0 && recorded <= faults, "\(recorded) recorded, fixture took \(faults)")
        let top = try #require(contention.majorFaultFiles?.first)
        #expect(top.path == file, "\(contention)")
        #expect(top.faults * 10 >= recorded * 9, "\(contention)")
        // Whichever kind the samples vote for (`cpu`, `runqueue` on a loaded machine, `io`), the
        // line names the file; the terminal may go on with ` · culprit …`.
        let named = "; \(recorded) major page fault\(recorded == 1 ? "" : "s"), "
        #expect(stall.diagnosis.text.contains(named), "\(stall.diagnosis.text)")
        #expect(stall.diagnosis.text.contains("% in \(file)"), "\(stall.diagnosis.text)")
        #expect(result.lagmonLines.contains { $0.contains(named) && $0.contains("% in \(file)") })
    }
}

/// A small ext4 filesystem on a loop device, mounted in a temporary directory, for the fixture
/// to freeze.
struct FrozenFilesystem {
    let image: String
    let directory: String

    /// Skips the calling test (Test.cancel) when no ext4 filesystem can be made and mounted here.
    init() throws {
        image = temporaryPath("ext4.img")
        directory = temporaryPath("mnt")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: image, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: image))
        try handle.truncate(atOffset: 16 << 20)
        try handle.close()
        let mkfs = try ToolRun.run(["mkfs.ext4", "-q", image])
        let mounted = mkfs.status == 0 ? try ToolRun.run(["mount", "-o", "loop", image, directory]) : mkfs
        guard mounted.status == 0 else {
            try? FileManager.default.removeItem(atPath: image)
            try? FileManager.default.removeItem(atPath: directory)
            try Test.cancel("cannot make and loop-mount an ext4 filesystem here: \(mounted.output)")
        }
    }

    /// Thaws (in case the fixture died frozen), unmounts and deletes it.
    func remove() {
        _ = try? ToolRun.run(["fsfreeze", "--unfreeze", directory])
        _ = try? ToolRun.run(["umount", directory])
        try? FileManager.default.removeItem(atPath: image)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
