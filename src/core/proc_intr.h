/* proc_intr.h: what proc.c and proc_intr.c share (not for use elsewhere):
 * the interrupts llmprof caught, the child group a fatal interrupt ends,
 * and the last byte echoed to our terminal. proc_intr.c holds the state a
 * signal handler touches; proc.c runs the children. */
#ifndef LLMPROF_PROC_INTR_H
#define LLMPROF_PROC_INTR_H

#include <signal.h>
#include <sys/types.h>

/* Signals that interrupt a run like Ctrl-C: forwarded to the child's group. */
#define PROC_NR_INTERRUPT_SIGNALS 4
extern const int proc_interrupt_signals[PROC_NR_INTERRUPT_SIGNALS];
/* Signals that would kill llmprof by default but mean nothing to it: ignored
 * for the whole run (reset to the default in the child). */
#define PROC_NR_IGNORED_SIGNALS 4
extern const int proc_ignored_signals[PROC_NR_IGNORED_SIGNALS];

int proc_is_interrupt(int sig);
/* Every interrupt, from either handler: noted, or, once the run only
 * finishes what it keeps, the end. Async-signal-safe. */
void proc_note_interrupt(int sig);

/* The running child's process group, for that end; 0 = none. */
extern volatile pid_t proc_running_group;
/* The last byte echoed to our fd 1 and 2 (index = fd). */
extern char proc_echo_last[3];

/* For proc_run(), with the interrupt signals blocked: how many interrupts
 * no caller has seen yet (through proc_pending_interrupt() or
 * proc_interrupt_count(), or an earlier proc_run()), which the child must
 * still get; *seen: how many were seen, *sig: the signal the first
 * interrupt was. Marks them all seen. */
int proc_interrupts_take_unseen(int *seen, int *sig);

#endif
