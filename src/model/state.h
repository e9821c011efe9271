/* state.h: the state of one pipeline step, the one vocabulary every layer
 * uses for it. The analysis (analyze, join) sets it, the report model
 * records it per step, the pipeline writes it to status.json; only the
 * writers at the edge (status.json, metrics.json, the Markdown tables, the
 * -v step lines) turn it into text, with step_state_name(). */
#ifndef LLMPROF_MODEL_STATE_H
#define LLMPROF_MODEL_STATE_H

enum step_state {
	STEP_PENDING, /* planned, not started yet */
	STEP_RUNNING,
	STEP_OK,
	STEP_FAILED,
	STEP_SKIPPED,
	STEP_TIMEOUT,
	STEP_INTERRUPTED,
};

/* "pending", "running", "ok", "failed", "skipped", "timeout",
 * "interrupted": the words status.json and the reports use. */
const char *step_state_name(enum step_state s);
/* The state step_state_name() calls name; STEP_FAILED for a name it does
 * not give (a state read back from a bundle's status.json). */
enum step_state step_state_from_name(const char *name);

#endif
