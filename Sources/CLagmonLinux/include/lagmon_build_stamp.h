// The commit a release binary was built from. The compiler never sees it: the build is the same
// for every commit (no rebuild when only the commit changes, and debug builds and the golden tests
// never depend on git). `make install` and `make package` write it afterwards into the reserved
// section `.lagmon_commit` (scripts/install: objcopy --update-section). Swift cannot place data
// in a named section, hence C.
#ifndef LAGMON_BUILD_STAMP_H
#define LAGMON_BUILD_STAMP_H

#include <stddef.h>

/// Size of the reserved section: the commit's text, NUL-padded (all NULs when never stamped).
#define LAGMON_BUILD_STAMP_SIZE 64

/// The reserved section's bytes (LAGMON_BUILD_STAMP_SIZE of them; not necessarily NUL-terminated).
const char *lagmon_build_stamp(void);

#endif
