import Foundation
import Glibc
import LagmonCore
import LagmonTestSupport
import Testing

/// Where outputs go (docs/exit-codes.md): streams, devices and FIFOs written in place, regular
/// files replaced atomically with the umask's mode (through symbolic links, never replacing
/// them), and every path checked before the program starts.
@Suite(.serialized)
struct OutputPathTests {
    /// A fresh directory, removed by the caller.
    func directory() throws -> String {
        let path = temporaryPath("outputs")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    func fileType(_ path: String) -> mode_t {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : 0
    }

    @Test func devStdoutIsWrittenInPlace() throws {
        let result = try LagmonProcess.run(["run", "--quiet", "--json", "/dev/stdout", "--", "/bin/true"], json: false)
        #expect(result.status == 0)
        let report = try JSONReportWriter.decode(Array(result.stdout.utf8))
        #expect(report.target.exitStatus == 0)
        #expect(fileType("/dev/stdout") == S_IFLNK, "/dev/stdout is still the link it was")
    }

    /// A character device of its own (the null device's numbers), so a regression replaces a
    /// file in a temporary directory, not the machine's /dev/null.
    @Test func aCharacterDeviceIsWrittenInPlace() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let device = dir + "/null"  // dev_t 0x103: major 1, minor 3
        try #require(mknod(device, S_IFCHR | 0o666, 0x103) == 0, "mknod: \(errno)")
        let result = try LagmonProcess.run(["run", "--quiet", "--json", device, "--", "/bin/true"], json: false)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fileType(device) == S_IFCHR)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["null"], "no temporary left")
    }

    @Test func aFIFOIsWrittenInPlace() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/report.fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        let lagmon = try LagmonProcess(["run", "--quiet", "--json", fifo, "--", "/bin/true"], json: false)
        // The reader, like `cat fifo`: lagmon's write waits for it (a FIFO is a rendezvous).
        let reader = try #require(FileHandle(forReadingAtPath: fifo))
        let bytes = reader.readDataToEndOfFile()
        try reader.close()
        let result = try lagmon.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try JSONReportWriter.decode(Array(bytes)).target.exitStatus == 0)
        #expect(fileType(fifo) == S_IFIFO)
    }

    @Test func aSymbolicLinkIsFollowedNotReplaced() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/real", withIntermediateDirectories: false)
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/real/report.json"))
        chmod(dir + "/real/report.json", 0o640)
        try #require(symlink("real/report.json", dir + "/link.json") == 0)
        let result = try LagmonProcess.run(
            ["run", "--quiet", "--json", dir + "/link.json", "--", "/bin/true"], json: false)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fileType(dir + "/link.json") == S_IFLNK)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/real/report.json"))
        #expect(try JSONReportWriter.decode(Array(bytes)).target.exitStatus == 0)
        var status = stat()
        stat(dir + "/real/report.json", &status)
        #expect(status.st_mode & 0o777 == 0o640, "the replaced file keeps its mode")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/real") == ["report.json"])
    }

    @Test(arguments: [("077", 0o600), ("002", 0o664), ("022", 0o644)])
    func aNewFileGetsTheUmasksMode(umask: String, mode: Int) throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/report.json"
        let result = try LagmonProcess.run(
            ["run", "--quiet", "--json", path, "--html", dir + "/report.html", "--", "/bin/true"], json: false,
            wrapper: ["/bin/sh", "-c", "umask \(umask); exec \"$0\" \"$@\""])
        #expect(result.status == 0, "\(result.stderr)")
        for file in [path, dir + "/report.html"] {
            var status = stat()
            #expect(stat(file, &status) == 0)
            #expect(Int(status.st_mode & 0o777) == mode, "\(file): \(String(status.st_mode & 0o777, radix: 8))")
        }
    }

    /// Each bad path: 64 and one line naming it, and the program never ran.
    @Test(arguments: [
        ("--json", "DIR", "it is a directory; give a file name in it"),
        ("--html", "DIR/" + String(repeating: "x", count: 300) + ".html", "a name in it is 305 bytes long"),
        ("--junit", "DIR/missing/junit.xml", "directory DIR/missing does not exist; create it or choose another path"),
        ("--summary-md", "DIR/file.txt/summary.md", "DIR/file.txt is not a directory"),
        ("--pprof", "/dev/sda-lagmon-none/x.pb.gz", "directory /dev/sda-lagmon-none does not exist"),
    ])
    func aBadOutputPathStopsBeforeTheProgramStarts(option: String, path: String, problem: String) throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data().write(to: URL(fileURLWithPath: dir + "/file.txt"))
        let marker = dir + "/ran"
        let resolved = path.replacingOccurrences(of: "DIR", with: dir)
        let result = try LagmonProcess.run(["run", option, resolved, "--", "/bin/touch", marker], json: false)
        #expect(result.status == 64)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(problem.replacingOccurrences(of: "DIR", with: dir)), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the program never started")
    }

    @Test func anUnwritableDirectoryStopsBeforeTheProgramStarts() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        chmod(dir, 0o755)
        let result = try LagmonProcess.run(
            ["run", "--json", dir + "/report.json", "--", "/bin/true"], json: false,
            wrapper: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "lagmon: cannot write the JSON report to \(dir)/report.json: directory \(dir) is not writable; choose another path"
            ))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test(arguments: [
        (["--json", "SAME", "--html", "SAME"], "--json and --html both write to SAME"),
        (["--json", "-", "--folded", "/dev/stdout"], "--json and --folded both write to /dev/stdout"),
        (
            ["--junit", "SAME", "--summary-md", "DIR/./same.out"],
            "--junit and --summary-md both write to DIR/./same.out"
        ),
    ])
    func twoOutputsOnOnePathAreAUsageError(arguments: [String], message: String) throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fill = { (text: String) in
            text.replacingOccurrences(of: "SAME", with: dir + "/same.out").replacingOccurrences(of: "DIR", with: dir)
        }
        let result = try LagmonProcess.run(["run"] + arguments.map(fill) + ["--", "/bin/true"], json: false)
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix("lagmon: " + fill(message) + "; give each output its own path"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/same.out"))
    }

    /// `--json -` into a pipe nobody reads: one line and 141, not a silent death by SIGPIPE.
    @Test func aClosedPipeOnStdoutIsOneLineAnd141() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        close(ends[0])
        let errors = Pipe()
        let pid = try spawnWithCleanSignals(
            [Binaries.lagmon, "run", "--quiet", "--json", "-", "--", "/bin/true"],
            environment: ProcessInfo.processInfo.environment,
            stdio: (0, ends[1], errors.fileHandleForWriting.fileDescriptor))
        close(ends[1])
        try errors.fileHandleForWriting.close()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        #expect(status & 0x7f == 0, "exited, not killed by a signal")
        #expect((status >> 8) & 0xff == 141)
        #expect(
            stderr
                == "lagmon: could not write the JSON report to stdout: its reader closed the pipe (broken pipe)\n")
    }
}
