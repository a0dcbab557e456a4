/// `lagmon attach --name NAME`: whether a process is called NAME. The name is the kernel's
/// (`comm`, what `ps -o comm`, `pgrep NAME` without `-f` and `top` show), compared whole, not as a
/// pattern. The kernel keeps only its first 15 bytes, so a longer NAME matches a process whose
/// `comm` is those 15 bytes and whose `argv[0]`, past its last `/`, is NAME. The rest of the
/// command line is not looked at: a shell, an editor or lagmon's own command line holding NAME
/// would match too, and `--name` must pick exactly one process.
public enum ProcessNameMatch {
    /// The bytes the kernel keeps of a process's name.
    public static let commBytes = 15

    /// Whether a process with name `comm` and first argument `argumentZero` is called `name`.
    public static func matches(name: String, comm: String, argumentZero: String?) -> Bool {
        guard !name.isEmpty else { return false }
        if comm == name { return true }
        guard name.utf8.count > commBytes, comm.utf8.elementsEqual(name.utf8.prefix(commBytes)),
            let argumentZero
        else { return false }
        return PathText.lastComponent(argumentZero) == name
    }

    /// Whether `comm` could belong to a process called `name` (`matches` then needs its
    /// `argv[0]` only when `name` is longer than `comm` can be).
    public static func needsArgumentZero(name: String, comm: String) -> Bool {
        comm != name && name.utf8.count > commBytes && comm.utf8.elementsEqual(name.utf8.prefix(commBytes))
    }
}
