import CLagmonLinux
import Foundation
import Glibc
import LagmonCore
import Testing

@testable import LagmonSymbols

/// Opening the files a target names inside its own root: symlinks (absolute, `..`, loops) never
/// lead out of it, with openat2's RESOLVE_IN_ROOT and with the component walk used where the
/// kernel lacks openat2; only regular files; NSpid parsed with hostile input.
@Suite(.serialized)
struct TargetFileSystemTests {
    /// How a path is opened below a root: the kernel's way, or lagmon's walk.
    enum Opener: String, CaseIterable, CustomTestStringConvertible {
        case openat2, walk
        var testDescription: String { rawValue }

        func open(_ path: String, below root: Int32, flags: Int32 = O_RDONLY | O_NONBLOCK) -> Int32 {
            switch self {
            case .openat2: lagmon_open_in_root(root, path, flags)
            case .walk: TargetPathWalk.open(path, below: root, flags: flags)
            }
        }
    }

    /// A directory standing for a container's root: `etc/hostname` inside says "inside", and
    /// symlinks that would reach the host's files if followed from lagmon's root.
    final class FakeRoot {
        let path = NSTemporaryDirectory() + "lagmon-root-\(UUID().uuidString)"
        let descriptor: Int32

        init() throws {
            let files = FileManager.default
            try files.createDirectory(atPath: path + "/etc", withIntermediateDirectories: true)
            try files.createDirectory(atPath: path + "/usr/bin", withIntermediateDirectories: true)
            try "inside\n".write(toFile: path + "/etc/hostname", atomically: false, encoding: .utf8)
            for (name, target) in [
                ("absolute", "/etc/hostname"), ("climbing", "../../../../../../etc/hostname"),
                ("usr/bin/python3", "/etc/shadow"), ("loop", "loop"), ("etcdir", "/etc"),
                ("magic", "/proc/self/root/etc/hostname"),
            ] {
                try files.createSymbolicLink(atPath: path + "/" + name, withDestinationPath: target)
            }
            descriptor = Glibc.open(path, lagmon_o_path() | O_DIRECTORY | O_CLOEXEC)
        }

        deinit {
            close(descriptor)
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    static func contents(_ descriptor: Int32) -> String? {
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &buffer, buffer.count)
        return count >= 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
    }

    @Test(arguments: Opener.allCases)
    func symlinksResolveInsideTheRoot(_ opener: Opener) throws {
        let root = try FakeRoot()
        #expect(root.descriptor >= 0)
        for path in ["/etc/hostname", "/absolute", "/climbing", "/../../etc/hostname", "/etcdir/hostname"] {
            #expect(Self.contents(opener.open(path, below: root.descriptor)) == "inside\n", "\(path)")
        }
        // The container's /usr/bin/python3 -> /etc/shadow: the container has none, and the host's
        // is never reached.
        #expect(opener.open("/usr/bin/python3", below: root.descriptor) == -ENOENT)
        #expect(opener.open("/loop", below: root.descriptor) == -ELOOP)
        // A symlink as the last component is refused when asked (perf maps).
        #expect(opener.open("/absolute", below: root.descriptor, flags: O_RDONLY | O_NOFOLLOW) == -ELOOP)
        #expect(opener.open("/etc/hostname/x", below: root.descriptor) == -ENOTDIR)
    }

    @Test func aLinkThroughProcStaysInsideTheRoot() throws {
        let root = try FakeRoot()
        // `/proc/self/root/...` resolves in the fake root, which has no /proc: never lagmon's own.
        #expect(Opener.walk.open("/magic", below: root.descriptor) == -ENOENT)
        #expect(Opener.openat2.open("/magic", below: root.descriptor) == -ENOENT)
    }

    @Test func lagmonsOwnFileSystemOpensRegularFilesOnly() throws {
        let files = TargetFileSystem(pid: getpid())
        #expect(files.namespacedPid == getpid())
        var status = stat()
        #expect(stat("/proc/self/exe", &status) == 0)
        let path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #expect((try? files.openFile(path, inode: UInt64(status.st_ino)).get()) != nil)
        guard case .failure(let other) = files.openFile(path, inode: UInt64(status.st_ino) &+ 1) else {
            Issue.record("another inode was accepted")
            return
        }
        #expect(other.reason.hasPrefix("another file than the one mapped"))
        guard case .failure(let device) = files.openFile("/dev/null") else {
            Issue.record("a device was accepted")
            return
        }
        #expect(device.reason == "not a regular file")
        let fifo = NSTemporaryDirectory() + "lagmon-fifo-\(UUID().uuidString)"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        // No writer: a blocking open would hang here.
        guard case .failure(let pipe) = files.openFile(fifo) else {
            Issue.record("a FIFO was accepted")
            return
        }
        #expect(pipe.reason == "not a regular file")
        guard case .failure(let missing) = files.openFile("/no/such/lagmon/file") else {
            Issue.record("a missing file was opened")
            return
        }
        #expect(
            missing
                == TargetFileProblem(
                    pid: getpid(), path: "/no/such/lagmon/file", reason: TargetFileSystem.missingReason))
    }

    @Test func aProcessThatIsGoneSaysWhy() {
        // Pid 0 is never a process: its root cannot be opened.
        let files = TargetFileSystem(pid: 0)
        guard case .failure(let problem) = files.openFile("/etc/hostname") else {
            Issue.record("opened without a root")
            return
        }
        #expect(problem.reason == "/proc/0/root could not be opened (ENOENT)")
    }

    @Test(arguments: [
        ("Name:\tpython3\nNSpid:\t4242\t1\n", Int32?(1)),
        ("NSpid:\t4242\n", 4242),
        ("NSpid:\t4242\t7\t3", 3),
        ("Name:\tx\n", nil),
        ("NSpid:\n", nil),
        ("NSpid:\t12\t0\n", nil),
        ("NSpid:\t12\t-3\n", nil),
        ("NSpid:\t12\tabc\n", nil),
        ("NSpid:\t99999999999\n", nil),
        ("", nil),
    ])
    func namespacedPidIsTheLastNSpid(_ status: String, _ expected: Int32?) {
        #expect(TargetFileSystem.namespacedPid(status: status) == expected)
    }
}
