import Glibc

/// Why an input file named on the command line (a report, a budget file) could not be read, as
/// the end of a line "cannot read the … PATH: ".
enum InputFileProblem {
    /// The reason `path` gave no contents: a directory, a file not readable, or nothing there.
    static func reason(_ path: String) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { return "it does not exist" }
        return status.st_mode & S_IFMT == S_IFDIR ? "it is a directory; give the path of a file" : "it is not readable"
    }
}
