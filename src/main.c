/* main.c: llmprof's entry point; everything else lives in libllmprof_core. */
#include "cmd/cmd.h"
#include "core/banned.h"

int main(int argc, char **argv)
{
	return cmd_main(argc, (const char **)argv);
}
