// The architecture's register map for libunwind: the one piece of the unwinder that names
// registers (lagmon_unwind_registers_x86_64.c; a port adds a file for its architecture).
#ifndef LAGMON_UNWIND_REGISTERS_H
#define LAGMON_UNWIND_REGISTERS_H

#include <libunwind.h>
#include <sys/user.h>

/// The value of libunwind register `reg` in `regs`: 0, or -UNW_EBADREG for one it does not keep.
int lagmon_register_value(const struct user_regs_struct *regs, unw_regnum_t reg, unw_word_t *value);

#endif
