// zlib, for gzipping pprof profiles. Debian's zlib1g-dev; see scripts/install-deps.
// deflateInit2 is a macro (it passes zlib's version and z_stream size), which Swift cannot
// import: this wrapper is the only logic here.
#ifndef LAGMON_CZLIB_SHIM_H
#define LAGMON_CZLIB_SHIM_H
#include <zlib.h>

/// Starts a gzip stream (window bits 15 + 16: a gzip header with no name and mtime 0, so the
/// same input always compresses to the same bytes).
static inline int lagmon_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
#endif
