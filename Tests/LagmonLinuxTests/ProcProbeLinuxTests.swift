import CLagmonLinux
import Foundation
import Glibc
import LagmonCore
import LagmonSymbols
import Synchronization
import Testing

@testable import LagmonLinux

/// The /proc probe's readers against real threads of this test process, parked in a wait call
/// or in another call; the attach target's checks; the static and setuid detection.
@Suite(.serialized)
struct ProcProbeLinuxTests {
    /// A thread of this process parked in `call` on a pipe until the pipe is written to.
    final class ParkedThread: @unchecked Sendable {
        private let box = ProcFSTests.TidBox()
        private var descriptors: [Int32] = [-1, -1]
        private var thread: Thread?

        init(_ call: @escaping @Sendable (Int32) -> Void) {
            pipe(&descriptors)
            let readEnd = descriptors[0]
            let thread = Thread { [box] in
                box.publish()
                call(readEnd)
            }
            self.thread = thread
            thread.start()
        }

        deinit {
            var byte: UInt8 = 1
            _ = write(descriptors[1], &byte, 1)
        }

        /// The tid once the thread is asleep in a system call (its /proc syscall line has a number).
        func parkedTid() -> Int32? {
            let deadlineNs = MonotonicClock.nowNs() + 10_000_000_000
            while MonotonicClock.nowNs() < deadlineNs {
                if let tid = box.value,
                    case .inSyscall = ProcFS.readFile(ProcFS.taskPath(pid: getpid(), tid: tid, "syscall"))
                        .flatMap(ProcSyscall.parse)
                {
                    return tid
                }
                usleep(1_000)
            }
            return nil
        }
    }

    @Test func aThreadInPollIsWaitingAndOneInReadIsBusy() throws {
        let polling = ParkedThread { descriptor in
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, -1)
        }
        let reading = ParkedThread { descriptor in
            var byte: UInt8 = 0
            _ = read(descriptor, &byte, 1)
        }
        let pollTid = try #require(polling.parkedTid())
        let readTid = try #require(reading.parkedTid())
        let clock: () -> UInt64 = { MonotonicClock.nowNs() }
        let waiting = try ProcLoopFiles(pid: getpid(), tid: pollTid).read(clock: clock)
        #expect(waiting.state == .waiting)
        #expect(waiting.endedNs >= waiting.beganNs)
        #expect(waiting.schedstat != nil)
        #expect(try ProcLoopFiles(pid: getpid(), tid: readTid).read(clock: clock).state == .busy)
    }

    @Test func aRunningThreadIsBusy() throws {
        let files = try ProcLoopFiles(pid: getpid(), tid: lagmon_gettid())
        #expect(try files.read(clock: { MonotonicClock.nowNs() }).state == .busy)
    }

    @Test func aMissingThreadIsGone() {
        #expect(throws: ProcLoopFiles.Failure.gone) { try ProcLoopFiles(pid: getpid(), tid: Int32.max) }
    }

    @Test func theAttachTargetOfAnotherProcess() throws {
        let child = try Process.run(URL(fileURLWithPath: "/bin/sleep"), arguments: ["30"])
        defer {
            // SIGKILL: the test runner's blocked signals are inherited, SIGTERM would wait.
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        let pid = child.processIdentifier
        // Until the child has executed sleep, its command line is the test runner's.
        let deadlineNs = MonotonicClock.nowNs() + 10_000_000_000
        while ProcFS.readFile("/proc/\(pid)/cmdline") != Array("/bin/sleep\u{0}30\u{0}".utf8),
            MonotonicClock.nowNs() < deadlineNs
        {
            usleep(1_000)
        }
        let target = try AttachTarget.resolve(pid: pid, thread: .main)
        #expect(target.command == ["/bin/sleep", "30"])
        #expect(target.name == "sleep")
        #expect(target.thread == ThreadRef(tid: pid, name: "sleep"))
        #expect(throws: AttachFailure.self) { try AttachTarget.resolve(pid: pid, thread: .name("no-such")) }
    }

    @Test func lagmonItselfAThreadAndNoProcessAreRefused() throws {
        #expect(throws: AttachFailure.lagmonItself(pid: getpid())) {
            try AttachTarget.resolve(pid: getpid(), thread: .main)
        }
        let parked = ParkedThread { descriptor in
            var byte: UInt8 = 0
            _ = read(descriptor, &byte, 1)
        }
        let tid = try #require(parked.parkedTid())
        #expect(throws: AttachFailure.notAProcess(tid: tid, process: getpid())) {
            try AttachTarget.resolve(pid: tid, thread: .main)
        }
        let pidMax = Int32(
            ProcFS.readFile("/proc/sys/kernel/pid_max").flatMap {
                Int(String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            } ?? 4_194_304)
        #expect(throws: AttachFailure.noSuchProcess(pid: pidMax + 1)) {
            try AttachTarget.resolve(pid: pidMax + 1, thread: .main)
        }
    }

    @Test func dynamicExecutablesAndScriptsHaveNoBarrier() throws {
        #expect(PreloadBarrier.detect(command: "/bin/ls", path: nil) == nil)
        #expect(PreloadBarrier.detect(command: "ls", path: "/nowhere:/bin") == nil)
        #expect(PreloadBarrier.detect(command: "no-such-program", path: "/bin") == nil)
        let script = NSTemporaryDirectory() + "lagmon-test-\(UUID().uuidString).sh"
        try "#!/bin/sh\nexit 0\n".write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        chmod(script, 0o755)
        #expect(PreloadBarrier.detect(command: script, path: nil) == nil)
    }

    @Test func aStaticExecutableIsDetected() throws {
        let directory = NSTemporaryDirectory() + "lagmon-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = directory + "/tiny.c"
        try "int main(void) { return 0; }\n".write(toFile: source, atomically: true, encoding: .utf8)
        let compiler = try Process.run(
            URL(fileURLWithPath: "/usr/bin/cc"), arguments: ["-static", "-o", directory + "/tiny-static", source])
        compiler.waitUntilExit()
        try #require(compiler.terminationStatus == 0)
        #expect(PreloadBarrier.detect(command: directory + "/tiny-static", path: nil) == .staticallyLinked)
        #expect(PreloadBarrier.detect(command: "tiny-static", path: "/bin:" + directory) == .staticallyLinked)
    }

    @Test func truncatedAndForeignFilesAreNotStatic() throws {
        let path = NSTemporaryDirectory() + "lagmon-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let ls = try Data(contentsOf: URL(fileURLWithPath: "/bin/ls"))
        for length in [0, 4, 63, 64, 100] {
            try ls.prefix(length).write(to: URL(fileURLWithPath: path))
            let reader = try #require(ELFFileReader(path: path))
            #expect(PreloadBarrier.isStaticELF(reader) == nil, "\(length) bytes of /bin/ls")
        }
        var header = [UInt8](ls.prefix(64))
        header[4] = 1  // ELFCLASS32
        try Data(header + ls.dropFirst(64)).write(to: URL(fileURLWithPath: path))
        #expect(PreloadBarrier.isStaticELF(try #require(ELFFileReader(path: path))) == nil)
        #expect(PreloadBarrier.isStaticELF(try #require(ELFFileReader(path: "/bin/ls"))) == false)
    }

    @Test func setuidAndSetgidToSomeoneElseAreDetected() throws {
        let path = NSTemporaryDirectory() + "lagmon-test-\(UUID().uuidString)-true"
        try FileManager.default.copyItem(atPath: "/bin/true", toPath: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(chown(path, 65534, getgid()) == 0)
        #expect(chmod(path, 0o4755) == 0)
        #expect(PreloadBarrier.detect(command: path, path: nil) == .setuid)
        #expect(chown(path, getuid(), 65534) == 0)
        #expect(chmod(path, 0o2755) == 0)
        #expect(PreloadBarrier.detect(command: path, path: nil) == .setgid)
        // Set-ID to lagmon's own user and group changes nothing: the loader is not in secure mode.
        #expect(chown(path, getuid(), getgid()) == 0)
        #expect(chmod(path, 0o6755) == 0)
        #expect(PreloadBarrier.detect(command: path, path: nil) == nil)
    }
}
