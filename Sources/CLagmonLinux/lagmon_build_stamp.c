#include "lagmon_build_stamp.h"

/* Writable and external so the compiler cannot fold its all-zero contents into the reader;
   `used` keeps it even though only this file names it. */
__attribute__((used, section(".lagmon_commit"))) char lagmon_build_stamp_bytes[LAGMON_BUILD_STAMP_SIZE];

const char *lagmon_build_stamp(void) { return lagmon_build_stamp_bytes; }
