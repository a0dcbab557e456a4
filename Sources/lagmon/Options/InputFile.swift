import Glibc
import Synchronization

/// An input named on the command line (a report, a budget file), read whole: a file, a pipe
/// (`<(lagmon …)`, `/dev/stdin`, a FIFO whose writer is there) or `-`, standard input.
///
/// It never waits for a writer that is not there: a FIFO is opened without blocking, so one with
/// no writer reads as empty and is named as such, rather than holding lagmon (and its signals)
/// in `open` until one comes. A writer that is there is read to its end.
///
/// Each path is read once per process: options are checked before the run and read again by
/// it, and a pipe gives its bytes only once (a file changed between the two would be judged by
/// other budgets than those checked).
enum InputFile {
    /// The most read from one input. A report of the largest session lagmon keeps (10,000 long
    /// iterations a loop, 4,096 threads, 500 stalls with their samples) is tens of MB.
    static let maximumBytes = 256 << 20

    /// The contents of `path`, or why there are none as the end of a line "cannot read the … PATH: ".
    static func read(_ path: String) -> Result<[UInt8], Problem> {
        if let earlier = alreadyRead.withLock({ $0[path] }) { return earlier }
        let result = readOnce(path)
        alreadyRead.withLock { $0[path] = result }
        return result
    }

    /// What each path gave the first time (`read`).
    private static let alreadyRead = Mutex<[String: Result<[UInt8], Problem>]>([:])

    private static func readOnce(_ path: String) -> Result<[UInt8], Problem> {
        if path == "-" {
            if isatty(STDIN_FILENO) == 1 { return .failure(.standardInputIsATerminal) }
            return read(descriptor: STDIN_FILENO, isPipe: true)
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            let error = errno
            switch error {
            case ENOENT, ENOTDIR: return .failure(.missing)
            case EACCES, EPERM: return .failure(.permissionDenied)
            default: return .failure(.openFailed(error))
            }
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(.openFailed(errno)) }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: return .failure(.directory)
        case S_IFREG: return read(descriptor: descriptor, isPipe: false)
        default:
            // A pipe, a socket or a terminal: its writer's data is waited for (its end is the
            // writer's close); a FIFO nobody opened for writing reads as at its end at once.
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
            return read(descriptor: descriptor, isPipe: true)
        }
    }

    private static func read(descriptor: Int32, isPipe: Bool) -> Result<[UInt8], Problem> {
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                let error = errno
                if error == EINTR { continue }
                if error == EAGAIN {  // standard input left non-blocking by whoever passed it
                    var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    _ = poll(&ready, 1, -1)
                    continue
                }
                return .failure(error == EISDIR ? .directory : .readFailed(error))
            }
            guard contents.count + count <= maximumBytes else { return .failure(.tooLarge) }
            contents.append(contentsOf: chunk[0..<count])
        }
        if contents.isEmpty && isPipe { return .failure(.emptyPipe) }
        return .success(contents)
    }

    /// Why an input gave no contents.
    enum Problem: Error, CustomStringConvertible {
        case missing
        case permissionDenied
        case directory
        case emptyPipe
        case standardInputIsATerminal
        case tooLarge
        case openFailed(Int32)
        case readFailed(Int32)

        var description: String {
            switch self {
            case .missing: "it does not exist"
            case .permissionDenied: "permission denied; give a file lagmon's user may read"
            case .directory: "it is a directory; give the path of a file"
            case .emptyPipe:
                "it is a pipe or FIFO that gave nothing (no writer, or one that wrote nothing); start its writer first, or give a file"
            case .standardInputIsATerminal: "standard input is a terminal; pipe the input in, or give a file"
            case .tooLarge: "it is larger than \(InputFile.maximumBytes >> 20) MiB, more than any lagmon wrote"
            case .openFailed(let error): "it cannot be opened (\(String(cString: strerror(error))))"
            case .readFailed(let error): "it cannot be read (\(String(cString: strerror(error))))"
            }
        }
    }
}
