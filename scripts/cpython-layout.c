// Prints the CPython layout lagmon reads (Sources/LagmonCore/Interpreters/CPythonLayout+Versions.swift)
// as computed by this interpreter's own headers: `cc -DPy_BUILD_CORE -I<include>/pythonX.Y
// -I<include>/pythonX.Y/internal scripts/cpython-layout.c && ./a.out` (2.7 and 3.6+). CPythonLayoutHeaderTests
// compiles it against every installed interpreter and compares with the committed table.
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#if PY_VERSION_HEX < 0x030B0000
#include <frameobject.h>
#endif
#if PY_MAJOR_VERSION < 3
// 2.7: names and line tables are `str` objects, PyStringObject (bytes with a cached hash).
#define PyBytesObject PyStringObject
#endif
#if PY_VERSION_HEX >= 0x03090000
#include "pycore_runtime.h"
#include "pycore_interp.h"
#elif PY_VERSION_HEX >= 0x03080000
#include "pycore_pystate.h"
#elif PY_VERSION_HEX >= 0x03070000
#include "internal/pystate.h"
#endif
#if PY_VERSION_HEX >= 0x030B0000
#include "pycore_frame.h"
#endif

#define FIELD(name, value) printf("%s=%ld\n", name, (long)(value))

int main(void) {
    FIELD("version", PY_MAJOR_VERSION * 100 + PY_MINOR_VERSION);
#if PY_VERSION_HEX >= 0x03070000
    FIELD("runtimeInterpretersHead", offsetof(_PyRuntimeState, interpreters.head));
#else
    // 2.7 and 3.6 have no _PyRuntime: lagmon reads pystate.c's static `interp_head` (the list's head) itself.
    FIELD("runtimeInterpretersHead", 0);
#endif
    FIELD("interpreterNext", offsetof(PyInterpreterState, next));
#if PY_VERSION_HEX >= 0x030B0000
    FIELD("interpreterThreadsHead", offsetof(PyInterpreterState, threads.head));
#else
    FIELD("interpreterThreadsHead", offsetof(PyInterpreterState, tstate_head));
#endif
    FIELD("threadNext", offsetof(PyThreadState, next));
    FIELD("threadThreadID", offsetof(PyThreadState, thread_id));
#if PY_VERSION_HEX >= 0x030B0000
    FIELD("threadNativeThreadID", offsetof(PyThreadState, native_thread_id));
#else
    FIELD("threadNativeThreadID", -1);
#endif
#if PY_VERSION_HEX >= 0x030D0000
    FIELD("threadFrame", offsetof(PyThreadState, current_frame));
    FIELD("cframeCurrentFrame", -1);
#elif PY_VERSION_HEX >= 0x030B0000
    FIELD("threadFrame", offsetof(PyThreadState, cframe));
    FIELD("cframeCurrentFrame", offsetof(_PyCFrame, current_frame));
#else
    FIELD("threadFrame", offsetof(PyThreadState, frame));
    FIELD("cframeCurrentFrame", -1);
#endif
#if PY_VERSION_HEX >= 0x030B0000
    FIELD("frameBack", offsetof(_PyInterpreterFrame, previous));
#if PY_VERSION_HEX >= 0x030D0000
    FIELD("frameCode", offsetof(_PyInterpreterFrame, f_executable));
    FIELD("frameInstruction", offsetof(_PyInterpreterFrame, instr_ptr));
#else
    FIELD("frameCode", offsetof(_PyInterpreterFrame, f_code));
    FIELD("frameInstruction", offsetof(_PyInterpreterFrame, prev_instr));
#endif
    FIELD("frameOwner", offsetof(_PyInterpreterFrame, owner));
#if PY_VERSION_HEX < 0x030C0000
    FIELD("frameIsEntry", offsetof(_PyInterpreterFrame, is_entry));
#else
    FIELD("frameIsEntry", -1);
#endif
    FIELD("codeQualname", offsetof(PyCodeObject, co_qualname));
    FIELD("codeInstructions", offsetof(PyCodeObject, co_code_adaptive));
    FIELD("codeLineTable", offsetof(PyCodeObject, co_linetable));
#else
    FIELD("frameBack", offsetof(PyFrameObject, f_back));
    FIELD("frameCode", offsetof(PyFrameObject, f_code));
    FIELD("frameInstruction", offsetof(PyFrameObject, f_lasti));
    FIELD("frameOwner", -1);
    FIELD("frameIsEntry", -1);
    FIELD("codeQualname", -1);
    FIELD("codeInstructions", -1);
#if PY_VERSION_HEX >= 0x030A0000
    FIELD("codeLineTable", offsetof(PyCodeObject, co_linetable));
#else
    FIELD("codeLineTable", offsetof(PyCodeObject, co_lnotab));
#endif
#endif
    FIELD("codeName", offsetof(PyCodeObject, co_name));
    FIELD("codeFilename", offsetof(PyCodeObject, co_filename));
    FIELD("codeFirstLineNumber", offsetof(PyCodeObject, co_firstlineno));
#if PY_MAJOR_VERSION >= 3
    FIELD("unicodeState", offsetof(PyASCIIObject, state));
    FIELD("unicodeLength", offsetof(PyASCIIObject, length));
    FIELD("unicodeASCIIData", sizeof(PyASCIIObject));
    FIELD("unicodeCompactData", sizeof(PyCompactUnicodeObject));
#endif
    FIELD("bytesSize", offsetof(PyVarObject, ob_size));
    FIELD("bytesData", offsetof(PyBytesObject, ob_sval));
    FIELD("typeName", offsetof(PyTypeObject, tp_name));
#if PY_VERSION_HEX >= 0x030D0000
#define DEBUG(name, member) FIELD("debug." name, offsetof(_Py_DebugOffsets, member))
    DEBUG("version", version);
    DEBUG("freeThreaded", free_threaded);
    DEBUG("runtimeInterpretersHead", runtime_state.interpreters_head);
    DEBUG("interpreterNext", interpreter_state.next);
    DEBUG("interpreterThreadsHead", interpreter_state.threads_head);
    DEBUG("threadNext", thread_state.next);
    DEBUG("threadCurrentFrame", thread_state.current_frame);
    DEBUG("threadThreadID", thread_state.thread_id);
    DEBUG("threadNativeThreadID", thread_state.native_thread_id);
    DEBUG("framePrevious", interpreter_frame.previous);
    DEBUG("frameExecutable", interpreter_frame.executable);
    DEBUG("frameInstructionPointer", interpreter_frame.instr_ptr);
    DEBUG("frameOwner", interpreter_frame.owner);
    DEBUG("codeFilename", code_object.filename);
    DEBUG("codeName", code_object.name);
    DEBUG("codeQualname", code_object.qualname);
    DEBUG("codeLineTable", code_object.linetable);
    DEBUG("codeFirstLineNumber", code_object.firstlineno);
    DEBUG("codeInstructions", code_object.co_code_adaptive);
    DEBUG("bytesSize", bytes_object.ob_size);
    DEBUG("bytesData", bytes_object.ob_sval);
    DEBUG("unicodeState", unicode_object.state);
    DEBUG("unicodeLength", unicode_object.length);
    DEBUG("unicodeASCIISize", unicode_object.asciiobject_size);
    FIELD("debug.size", sizeof(_Py_DebugOffsets));
#endif
    return 0;
}
