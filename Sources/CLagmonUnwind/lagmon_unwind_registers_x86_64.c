#if !defined(__x86_64__)
#error "lagmon supports Linux on x86_64 only (README); a port adds its register map in a file like this one"
#endif

#include "lagmon_unwind_registers.h"

int lagmon_register_value(const struct user_regs_struct *r, unw_regnum_t reg, unw_word_t *value) {
    switch (reg) {
    case UNW_X86_64_RAX: *value = r->rax; return 0;
    case UNW_X86_64_RDX: *value = r->rdx; return 0;
    case UNW_X86_64_RCX: *value = r->rcx; return 0;
    case UNW_X86_64_RBX: *value = r->rbx; return 0;
    case UNW_X86_64_RSI: *value = r->rsi; return 0;
    case UNW_X86_64_RDI: *value = r->rdi; return 0;
    case UNW_X86_64_RBP: *value = r->rbp; return 0;
    case UNW_X86_64_RSP: *value = r->rsp; return 0;
    case UNW_X86_64_R8: *value = r->r8; return 0;
    case UNW_X86_64_R9: *value = r->r9; return 0;
    case UNW_X86_64_R10: *value = r->r10; return 0;
    case UNW_X86_64_R11: *value = r->r11; return 0;
    case UNW_X86_64_R12: *value = r->r12; return 0;
    case UNW_X86_64_R13: *value = r->r13; return 0;
    case UNW_X86_64_R14: *value = r->r14; return 0;
    case UNW_X86_64_R15: *value = r->r15; return 0;
    case UNW_X86_64_RIP: *value = r->rip; return 0;
    default: return -UNW_EBADREG;
    }
}
