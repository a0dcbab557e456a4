// libunwind for remote (ptrace) unwinding. Debian's libunwind-dev; see scripts/install-deps.
// The unw_* names are macros over _Ux86_64_* symbols, which Swift cannot import; code that
// needs them is C (CLagmonUnwind), so this header only has to make them visible.
#ifndef LAGMON_CLIBUNWIND_SHIM_H
#define LAGMON_CLIBUNWIND_SHIM_H
#include <libunwind-ptrace.h>
#include <libunwind.h>
#endif
