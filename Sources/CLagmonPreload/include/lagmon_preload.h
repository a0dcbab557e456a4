// The LD_PRELOAD shim exports only the libc wait calls it interposes; see lagmon_preload.c.
#ifndef LAGMON_PRELOAD_H
#define LAGMON_PRELOAD_H
#endif
