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
}
