import LagmonCore

/// Finds the separate debug file of a stripped image, where distributions and `objcopy
/// --only-keep-debug` put it, as gdb and llvm-symbolizer look for it:
///
/// 1. by build id: `<root>/.build-id/ab/cdef….debug` (Debian's `-dbgsym` packages), accepted
///    when the file's own build id is the image's;
/// 2. by `.gnu_debuglink`: `<dir>/<name>`, `<dir>/.debug/<name>` and `<root><dir>/<name>`, where
///    `<dir>` is the image's directory, accepted when the file's CRC-32 is the link's.
///
/// The image names the link, so the name is one plain file name (`ELFImage.DebugLink`), looked
/// up only in those directories; files are opened as `MappedFile.openRegularFile` opens them
/// (regular files only, never blocking), and a file whose id or checksum differs is never used.
struct ELFDebugFileLocator: Sendable {
    /// Where distributions install debug files.
    static let standardDirectories = ["/usr/lib/debug"]

    /// The debug roots searched (`/usr/lib/debug`; tests give their own).
    var directories: [String] = standardDirectories

    /// One found debug file: the open file (for the external tool) and its image (for symbols).
    struct Found {
        var file: MappedFile
        var image: ELFImage
    }

    /// The debug file of `image`, whose file is at `path` (nil: look by build id only, as for a
    /// file whose directory lagmon must not search: deleted, or served by another process).
    func locate(_ image: ELFImage, path: String?) -> Found? {
        if let id = image.buildID, let found = byBuildID(id) { return found }
        if let link = image.debugLink, let path, path.hasPrefix("/") { return byLink(link, imagePath: path) }
        return nil
    }

    private func byBuildID(_ id: String) -> Found? {
        let name = String(id.prefix(2)) + "/" + String(id.dropFirst(2)) + ".debug"
        for root in directories {
            guard let found = open(root + "/.build-id/" + name), found.image.buildID == id else { continue }
            return found
        }
        return nil
    }

    private func byLink(_ link: ELFImage.DebugLink, imagePath: String) -> Found? {
        let directory = PathText.deletingLastComponent(imagePath)
        let candidates =
            [directory + "/" + link.fileName, directory + "/.debug/" + link.fileName]
            + directories.map { $0 + directory + "/" + link.fileName }
        for candidate in candidates where candidate != imagePath {
            guard let found = open(candidate), let reader = found.file.reader(), CRC32.of(reader) == link.crc
            else { continue }
            return found
        }
        return nil
    }

    private func open(_ path: String) -> Found? {
        guard let file = MappedFile.openRegularFile(path), let image = file.reader().flatMap({ ELFImage(reader: $0) })
        else { return nil }
        return Found(file: file, image: image)
    }
}
