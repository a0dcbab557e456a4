import CLagmonLinux
import Glibc
import LagmonCore
import LagmonSymbols

/// The HotSpot JVM of one process, as far as naming its interpreted frames needs: the layout its
/// exported tables give (`HotSpotVMStructs`). Found once per JVM from its memory map, libjvm.so's
/// dynamic symbols and its memory, outside any pause.
enum HotSpotRuntime {
    /// The layout of the JVM whose memory map is `map`; nil when no `libjvm.so` is mapped, its
    /// file cannot be read (`note` is told why), or its tables are missing or not filled in yet.
    static func find(files: TargetFileSystem, map: ProcessMemoryMap, note: (TargetFileProblem) -> Void)
        -> HotSpotLayout?
    {
        // A file another process or a network serves is never opened here (it may never answer).
        guard
            let mapping = map.mappings.first(where: {
                $0.path.hasSuffix("/libjvm.so") && !FileSystemServers.serveRemotely(device: $0.device, pid: files.pid)
            }), let module = map.module(containing: mapping.start)
        else { return nil }
        let reader: ELFFileReader
        switch files.open(mapping) {
        case .success(let file):
            guard let opened = file.reader() else { return nil }
            reader = opened
        case .failure(let problem):
            note(problem)
            return nil
        }
        let symbols = ELFDataSymbol.addresses(
            of: HotSpotVMStructs.symbolNames, reader: reader, loadBase: module.loadBase)
        let pid = files.pid ?? getpid()
        return HotSpotVMStructs.layout(symbols: symbols) { address, count in readMemory(pid: pid, address, count) }
    }

    /// `count` bytes of process `pid` at `address`; nil unless all were read.
    static func readMemory(pid: Int32, _ address: UInt64, _ count: Int) -> [UInt8]? {
        guard count > 0, count <= 1 << 20, address != 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { lagmon_read_memory(pid, address, $0.baseAddress, count) }
        return read == count ? bytes : nil
    }
}
