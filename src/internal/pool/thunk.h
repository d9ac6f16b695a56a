/* SPDX-License-Identifier: Apache-2.0 */
/* The thunks through which a typed body enters wf__tspawn_slow
 * (src/pool/typed.c), wf__tsync_slow and wf__tsync_rest (src/pool/join.c)
 * on x86-64 (weft/task.h, WF__THUNK_CALL): jumped to with the arguments in
 * rdi, rsi, rdx and rcx, and the address to go back to in r11; they keep
 * every general register but rdi, r10 and r11.  Each steps over the
 * caller's red zone, saves the registers the C function may change,
 * aligns the stack for the call, and jumps back.  The CFI says where the
 * caller's rip and rsp are at each instruction, so debuggers and
 * unwinders see through.  THUNK(name, target) defines one; each file
 * defines the thunks of its own functions.  Defined whenever the target
 * is x86-64 ELF (WF__HAVE_THUNKS), whether that file is built with
 * ThreadSanitizer or not, since the code that uses them may be.  Never
 * installed. */
#ifndef WF_INTERNAL_POOL_THUNK_H
#define WF_INTERNAL_POOL_THUNK_H

#if defined(__x86_64__) && !defined(__ILP32__) && defined(__ELF__)
#define WF__HAVE_THUNKS 1
#if defined(__CET__) && (__CET__ & 1)
#define THUNK_ENDBR "endbr64\n"
#else
#define THUNK_ENDBR ""
#endif
#define THUNK(name, target)                                                    \
    __asm__(".pushsection .text\n"                                             \
            ".globl " #name "\n"                                               \
            ".type " #name ", @function\n"                                     \
            ".p2align 4\n" #name ":\n"                                         \
            ".cfi_startproc simple\n"                                          \
            ".cfi_def_cfa rsp, 0\n"  /* the caller's rsp, untouched */         \
            ".cfi_register 16, 11\n" /* its rip: in r11 */                     \
            THUNK_ENDBR "lea -128(%rsp), %rsp\n" /* over its red zone */       \
            ".cfi_def_cfa_offset 128\n"                                        \
            "push %r11\n"                                                      \
            ".cfi_def_cfa_offset 136\n"                                        \
            ".cfi_offset 16, -136\n"                                           \
            "push %rbp\n"                                                      \
            ".cfi_def_cfa_offset 144\n"                                        \
            ".cfi_offset rbp, -144\n"                                          \
            "mov %rsp, %rbp\n"                                                 \
            ".cfi_def_cfa_register rbp\n"                                      \
            "push %rax\n"                                                      \
            "push %rcx\n"                                                      \
            "push %rdx\n"                                                      \
            "push %rsi\n"                                                      \
            "push %r8\n"                                                       \
            "push %r9\n"                                                       \
            "and $-16, %rsp\n"                                                 \
            "call " #target "\n"                                               \
            "lea -48(%rbp), %rsp\n"                                            \
            "pop %r9\n"                                                        \
            "pop %r8\n"                                                        \
            "pop %rsi\n"                                                       \
            "pop %rdx\n"                                                       \
            "pop %rcx\n"                                                       \
            "pop %rax\n"                                                       \
            "pop %rbp\n"                                                       \
            ".cfi_def_cfa rsp, 136\n"                                          \
            ".cfi_restore rbp\n"                                               \
            "pop %r11\n"                                                       \
            ".cfi_def_cfa_offset 128\n"                                        \
            ".cfi_register 16, 11\n"                                           \
            "lea 128(%rsp), %rsp\n"                                            \
            ".cfi_def_cfa_offset 0\n"                                          \
            "jmp *%r11\n"                                                      \
            ".cfi_endproc\n"                                                   \
            ".size " #name ", .-" #name "\n"                                   \
            ".popsection\n")
#endif

#endif /* WF_INTERNAL_POOL_THUNK_H */
