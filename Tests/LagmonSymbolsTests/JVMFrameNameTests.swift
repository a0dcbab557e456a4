import LagmonCore
import LagmonSymbols
import Testing

/// HotSpot's perf-map names (`jcmd PID Compiler.perfmap`, JDK 17) as frames.
struct JVMFrameNameTests {
    @Test func aCompiledMethodIsItsClassAndName() {
        let frame = JITFrameName.frame("void Handler.spinFor(long)", address: 0x7f00)
        #expect(frame.symbol == "Handler.spinFor" && frame.runtime == .java && frame.address == 0x7f00)
        #expect(frame.isLibrary == nil)
        #expect(FrameIdentity(frame).isApplicationSource)
        let nested = JITFrameName.frame(
            "boolean com.example.Feed$Parser.lambda$parse$0(java.lang.String, int[])", address: 1)
        #expect(nested.symbol == "com.example.Feed$Parser.lambda$parse$0")
        let constructor = JITFrameName.frame("void com.example.Feed.<init>()", address: 1)
        #expect(constructor.symbol == "com.example.Feed.<init>")
    }

    @Test func theJDKsMethodsAreLibraryCode() {
        let sleep = JITFrameName.frame("void java.lang.Thread.sleep(long)", address: 1)
        #expect(sleep.symbol == "java.lang.Thread.sleep" && sleep.runtime == .java && sleep.isLibrary == true)
        #expect(!FrameIdentity(sleep).isApplication)
        let unsafe = JITFrameName.frame(
            "java.lang.Object jdk.internal.misc.Unsafe.getReferenceVolatile(java.lang.Object, long)", address: 1)
        #expect(unsafe.symbol == "jdk.internal.misc.Unsafe.getReferenceVolatile" && unsafe.isLibrary == true)
    }

    @Test func theInterpreterIsMarkedAndStubsAreRuntimeCode() {
        let interpreted = JITFrameName.frame("Interpreter", address: 1)
        #expect(interpreted.symbol == "[interpreted Java]" && interpreted.runtime == .java)
        for stub in ["I2C/C2I adapters", "StubRoutines (1)", "SafepointBlob", "native signature handlers"] {
            let frame = JITFrameName.frame(stub, address: 1)
            #expect(frame.runtime == nil && frame.symbol == stub, "\(stub)")
            #expect(!FrameIdentity(frame).isApplication, "\(stub)")
        }
    }

    @Test func namesThatOnlyLookLikeMethodsAreLeftToTheGenericRule() {
        for name in ["Handler.spinFor(long)", "void (long)", "void .spinFor()", "a b c.d()", "void Handler.(x)"] {
            #expect(JITFrameName.frame(name, address: 1).runtime == .jit, "\(name)")
        }
    }

    @Test func interpretedFramesAreNamedAfterTheMethodsReadFromThem() {
        let unmapped = { (address: UInt64) in Frame(symbol: nil, module: "?", offset: address, address: address) }
        let libc = Frame(symbol: "clock_gettime", module: "libc.so.6", offset: 0x10, address: 0x7000)
        let frames = [libc, unmapped(0x100), unmapped(0x200), unmapped(0x300), unmapped(0x400)]
        let named = JVMFrameName.named(
            frames,
            interpreted: [
                InterpretedJavaFrame(index: 0, method: "Evil.rename"),
                InterpretedJavaFrame(index: 1, method: "java.lang.System.nanoTime"),
                InterpretedJavaFrame(index: 2, method: "BlockingHandler.computeReply"),
                InterpretedJavaFrame(index: 3, method: nil),
                InterpretedJavaFrame(index: 9, method: "Out.ofRange"),
            ])
        #expect(named.count == frames.count)
        #expect(named[0] == libc, "a function of a mapped file is never renamed")
        #expect(named[1].symbol == "java.lang.System.nanoTime" && named[1].isLibrary == true)
        #expect(named[2].symbol == "BlockingHandler.computeReply" && named[2].runtime == .java)
        #expect(named[2].isLibrary == nil && named[2].address == 0x200 && named[2].module == "[jit]")
        #expect(FrameIdentity(named[2]).isApplicationSource)
        #expect(named[3].symbol == "[interpreted Java]" && named[3].runtime == .java)
        #expect(named[4] == frames[4])
    }
}
