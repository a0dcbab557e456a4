import CLagmonUnwind
import LagmonCore
import LagmonSymbols

/// The unwind tables of a process's executable images, for the unwinder: located by lagmon from
/// each image's program headers, read from the mapped file itself (`TargetFileSystem`:
/// map_files, else the path inside the process's root; regular files only, never blocking) or,
/// for the vDSO, from the process's memory. libunwind then searches them in the target's memory
/// and never opens a file.
///
/// Keeps every file it opened, and each process's file system: the symbolizer reads the same
/// files after the target exited (deleted or replaced ones included). Notes the files that could
/// not be read (`problems`), for the report. Owned by the sampler thread.
final class UnwindImages {
    /// The most distinct files kept open (descriptors are finite; beyond it images unwind and
    /// symbolize without them: no unwind rules, the path opened safely later).
    static let fileLimit = 512

    private(set) var files: [MappedFile.Key: MappedFile] = [:]
    /// Tables by file (nil: the file has none, or could not be opened or read).
    private var tables: [MappedFile.Key: ELFUnwindTable?] = [:]
    /// The vDSO's table, by the mapping's range (one per process).
    private var vdsoTables: [Int32: (start: UInt64, table: ELFUnwindTable?)] = [:]

    /// Copies the files another process or a network serves, never reading them in lagmon.
    let servedFiles = ServedFileCopier()
    /// Each process's file system (its root, held open), by pid.
    private(set) var fileSystems: [Int32: TargetFileSystem] = [:]
    /// The most processes whose file systems are kept (beyond it, one is opened per use).
    static let fileSystemLimit = 1024
    /// Files of the targets that could not be read, first ones first (at most `problemLimit`).
    private(set) var problems: [TargetFileProblem] = []
    static let problemLimit = 32

    /// The file system of process `pid`, opened at its first use.
    func fileSystem(pid: Int32) -> TargetFileSystem {
        if let known = fileSystems[pid] { return known }
        let opened = TargetFileSystem(pid: pid)
        if fileSystems.count < Self.fileSystemLimit { fileSystems[pid] = opened }
        return opened
    }

    /// Keeps `problem` for the report (once per process and path).
    func note(_ problem: TargetFileProblem) {
        guard problems.count < Self.problemLimit,
            !problems.contains(where: { $0.pid == problem.pid && $0.path == problem.path })
        else { return }
        problems.append(problem)
    }

    /// One region per executable mapping of `map` (process `pid`) whose image has a table,
    /// sorted by address.
    func regions(pid: Int32, map: ProcessMemoryMap) -> [lagmon_unwind_region] {
        map.mappings.filter(\.isExecutable).compactMap { mapping -> lagmon_unwind_region? in
            guard let table = table(pid: pid, mapping: mapping), let bias = table.loadBias(in: mapping) else {
                return nil
            }
            return lagmon_unwind_region(
                start_ip: mapping.start, end_ip: mapping.end, eh_frame_hdr: bias &+ table.headerAddress,
                table_data: bias &+ table.tableAddress, table_entries: table.entryCount)
        }
    }

    private func table(pid: Int32, mapping: MemoryMapping) -> ELFUnwindTable? {
        if mapping.path == "[vdso]" {
            if let known = vdsoTables[pid], known.start == mapping.start { return known.table }
            let reader = ELFFileReader(pid: pid, address: mapping.start, size: mapping.end - mapping.start)
            let table = reader.flatMap { ELFUnwindTable(reader: $0) }
            vdsoTables[pid] = (mapping.start, table)
            return table
        }
        guard mapping.isFile else { return nil }
        let key = MappedFile.Key(mapping)
        if let known = tables[key] { return known }
        guard files.count < Self.fileLimit else { return nil }
        let file: MappedFile?
        if FileSystemServers.serveRemotely(device: mapping.device, pid: pid) {
            file = servedFiles.copy(pid: pid, mapping: mapping, root: fileSystem(pid: pid))
        } else {
            switch fileSystem(pid: pid).open(mapping) {
            case .success(let opened): file = opened
            case .failure(let problem):
                note(problem)
                file = nil
            }
        }
        if let file { files[key] = file }
        let table = file?.reader().flatMap { ELFUnwindTable(reader: $0) }
        tables[key] = table
        return table
    }
}
