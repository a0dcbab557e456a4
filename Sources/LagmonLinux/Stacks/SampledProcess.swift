import CLagmonUnwind
import LagmonCore
import LagmonSymbols

/// What the sampler keeps of one sampled process across its busy periods: its unwinder (whose
/// caches hold that process's unwind tables and pages), its latest images, its Python frame
/// reader, its JVM's interpreted-frame reader, its perf map and its pagemap. Created at the process's first sample or `prepare`.
struct SampledProcess {
    /// The unwinder, created at first use (tried again while libunwind could not make one).
    private(set) var unwinder: OpaquePointer?
    /// The latest images of the process, shared by every busy period that saw the same ones.
    var images: ProcessMemoryMap?
    /// Whether the process was looked at for an interpreter, with or without one found.
    var interpreterProbed = false
    /// The Python frame reader, when the process runs CPython 3.9+.
    var python: CPythonFrameReader?
    /// The reader of HotSpot's interpreted frames, when the process is a JVM whose tables were read.
    var jvm: HotSpotFrameReader?
    /// How often the process, mapping `libjvm.so`, was looked at for its tables without success.
    var jvmProbes = 0
    /// The perf map, read after samples that hold code in no mapped file.
    var perfMap: PerfMapFile?
    /// The perf-map requests made of it when it is a JVM (`JVMAttach`): what lagmon caused, when
    /// it last asked, how often it failed.
    var jvmPerfMapRequests = JVMPerfMapRequests()
    /// The pagemap (nil inside when it cannot be opened): a stack copy of resident pages is made
    /// on the sampler's thread.
    private var pagemap: ResidentPages??

    /// The process's unwinder, made at the first call.
    mutating func unwinder(pid: Int32) -> OpaquePointer? {
        if unwinder == nil { unwinder = lagmon_unwinder_create(pid) }
        return unwinder
    }

    /// The process's pagemap reader, opened at the first call.
    mutating func residentPages(pid: Int32) -> ResidentPages? {
        if let known = pagemap { return known }
        let pages = ResidentPages(pid: pid)
        pagemap = .some(pages)
        return pages
    }

    /// Frees the unwinder (no read may still be using it).
    func destroyUnwinder() {
        if let unwinder { lagmon_unwinder_destroy(unwinder) }
    }
}
