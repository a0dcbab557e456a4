// libunwind for remote unwinding, through lagmon's own accessors over a copied stack
// (CLagmonUnwind; libunwind-ptrace's accessors are not used, nor linked). Debian's
// libunwind-dev; see scripts/install-deps. The unw_* names are macros over per-architecture
// symbols (_U<arch>_*), which Swift cannot import; code that needs them is C (CLagmonUnwind),
// so this header only has to make them visible.
#ifndef LAGMON_CLIBUNWIND_SHIM_H
#define LAGMON_CLIBUNWIND_SHIM_H
#include <libunwind.h>
#endif
