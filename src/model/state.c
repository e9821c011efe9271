/* state.c: see state.h. */
#include <string.h>

#include "core/util.h"
#include "model/state.h"
#include "core/banned.h"

static const char *const step_state_names[] = {"pending", "running", "ok",	   "failed",
					       "skipped", "timeout", "interrupted"};

const char *step_state_name(enum step_state s)
{
	return step_state_names[s];
}

enum step_state step_state_from_name(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(step_state_names); i++)
		if (!strcmp(name, step_state_names[i]))
			return (enum step_state)i;
	return STEP_FAILED;
}
