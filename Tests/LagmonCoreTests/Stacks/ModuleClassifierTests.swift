import LagmonCore
import Testing

struct ModuleClassifierTests {
    @Test(arguments: [
        "libc.so.6", "libc.so", "libc-2.31.so", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "ld-2.31.so",
        "libm.so.6", "libpthread.so.0", "libpthread-2.31.so", "libdl.so.2", "librt.so.1", "libgcc_s.so.1",
        "libstdc++.so.6", "libstdc++.so.6.0.30", "libswiftCore.so", "libswift_Concurrency.so",
        "libswiftDispatch.so", "libswiftGlibc.so", "libFoundation.so", "libFoundationEssentials.so",
        "libFoundationNetworking.so", "lib_FoundationICU.so", "libdispatch.so", "libBlocksRuntime.so",
        "libCoreFoundation.so", "libicuuc.so.72", "libicudata.so.72.1", "linux-vdso.so.1", "[vdso]", "[vsyscall]",
        "[heap]", "[stack]",
        "libLagmonPreload.so", "?", "", "/usr/lib/swift/linux/libswiftCore.so", "/lib/x86_64-linux-gnu/libc.so.6",
    ])
    func systemAndRuntimeModules(module: String) {
        #expect(ModuleClassifier.isSystem(module))
        #expect(!ModuleClassifier.isApplication(module))
    }

    @Test(arguments: [
        "lagmon-demo", "ImageViewer", "ImageViewer.debug", "libImageKit.so", "libz.so.1", "libcurl.so.4",
        "libcrypto.so.3", "libcore.so", "libmagic.so.1", "libdispatcher.so", "libsoup-3.0.so.0", "lib.so.tools",
        "my.socket-server", "libswif.so", "app-2.so", "/opt/demo/bin/ImageViewer", "libmath.so",
    ])
    func applicationModules(module: String) {
        #expect(ModuleClassifier.isApplication(module))
        #expect(!ModuleClassifier.isSystem(module))
    }
}
