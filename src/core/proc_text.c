/* proc_text.c: how proc.h shows a child and its end: signal names, the
 * one-line description of a result, C-style escaping for logs/<step>.argv
 * and shell quoting for display (never run through a shell). Kept apart
 * from proc.c, which runs the children. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "core/bundle_dir.h"
#include "core/util.h"
#include "core/proc.h"
#include "core/banned.h"

static const struct {
	int sig;
	const char *name;
} signames[] = {
    {SIGHUP, "SIGHUP"},	      {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},   {SIGILL, "SIGILL"},
    {SIGTRAP, "SIGTRAP"},     {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},	    {SIGFPE, "SIGFPE"},
    {SIGKILL, "SIGKILL"},     {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"},   {SIGUSR2, "SIGUSR2"},
    {SIGPIPE, "SIGPIPE"},     {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},   {SIGCHLD, "SIGCHLD"},
    {SIGCONT, "SIGCONT"},     {SIGSTOP, "SIGSTOP"}, {SIGTSTP, "SIGTSTP"},   {SIGTTIN, "SIGTTIN"},
    {SIGTTOU, "SIGTTOU"},     {SIGURG, "SIGURG"},   {SIGXCPU, "SIGXCPU"},   {SIGXFSZ, "SIGXFSZ"},
    {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGWINCH, "SIGWINCH"}, {SIGIO, "SIGIO"},
    {SIGSYS, "SIGSYS"},
};

const char *proc_signal_name(int sig)
{
	static char buf[16];

	for (size_t i = 0; i < ARRAY_SIZE(signames); i++)
		if (signames[i].sig == sig)
			return signames[i].name;
	snprintf(buf, sizeof(buf), "SIG%d", sig);
	return buf;
}

void proc_result_describe(const struct proc_result *res, const struct proc_spec *spec,
			  struct strbuf *out)
{
	switch (res->outcome) {
	case PROC_EXITED:
		strbuf_addf(out, "exited with status %d", res->exit_status);
		break;
	case PROC_SIGNALED:
		strbuf_addf(out, "killed by signal %d (%s)", res->signal,
			    proc_signal_name(res->signal));
		break;
	case PROC_EXEC_FAILED:
		if (!strcmp(res->failed_call, "chdir"))
			strbuf_addf(out, "cannot change to directory '%s': %s",
				    spec && spec->cwd ? spec->cwd : "?", strerror(res->exec_errno));
		else
			strbuf_addf(out, "cannot execute '%s': %s",
				    spec && spec->argv ? spec->argv[0] : "?",
				    strerror(res->exec_errno));
		break;
	case PROC_TIMEOUT:
		strbuf_addf(out, "timed out after %g s", spec ? spec->timeout_s : 0.0);
		if (res->signal)
			strbuf_addf(out, " (ended by %s)", proc_signal_name(res->signal));
		else
			strbuf_addf(out, " (exited with status %d after SIGTERM)",
				    res->exit_status);
		break;
	case PROC_INTERRUPTED:
		strbuf_addf(out, "interrupted by %s", proc_signal_name(res->interrupt_signal));
		break;
	}
}

void proc_escape_c(struct strbuf *sb, const char *arg)
{
	for (const unsigned char *p = (const unsigned char *)arg; *p; p++) {
		switch (*p) {
		case '\\':
			strbuf_addstr(sb, "\\\\");
			break;
		case '\n':
			strbuf_addstr(sb, "\\n");
			break;
		case '\t':
			strbuf_addstr(sb, "\\t");
			break;
		case '\r':
			strbuf_addstr(sb, "\\r");
			break;
		default:
			if (*p >= 0x20 && *p < 0x7f)
				strbuf_addch(sb, *p);
			else
				strbuf_addf(sb, "\\x%02x", *p);
		}
	}
}

/* The one shell-quoting rule (dry-run lines, nsys/cmd.txt, ncu/cmd.txt):
 * safe characters as is, '...' otherwise; with escape, control and
 * non-ASCII bytes switch to $'...' so that the line stays one printable line. */
static void quote_shell(struct strbuf *sb, const char *arg, int escape)
{
	int safe = *arg != '\0', plain = 1;

	for (const unsigned char *p = (const unsigned char *)arg; *p; p++) {
		if (escape && (*p < 0x20 || *p >= 0x7f))
			plain = 0;
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			    "_@%+=:,./-",
			    *p))
			safe = 0;
	}
	if (safe) {
		strbuf_addstr(sb, arg);
	} else if (plain) {
		strbuf_addch(sb, '\'');
		for (const char *p = arg; *p; p++) {
			if (*p == '\'')
				strbuf_addstr(sb, "'\\''");
			else
				strbuf_addch(sb, *p);
		}
		strbuf_addch(sb, '\'');
	} else {
		strbuf_addstr(sb, "$'");
		for (const unsigned char *p = (const unsigned char *)arg; *p; p++) {
			if (*p == '\'')
				strbuf_addstr(sb, "\\'");
			else
				proc_escape_c(sb, (const char[]){(char)*p, 0});
		}
		strbuf_addch(sb, '\'');
	}
}

void proc_quote_shell(struct strbuf *sb, const char *arg)
{
	quote_shell(sb, arg, 1);
}

void proc_quote_shell_bytes(struct strbuf *sb, const char *arg)
{
	quote_shell(sb, arg, 0);
}

int proc_write_argv(const struct bundle_dir *bd, const char *rel, const char *const *argv,
		    struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	for (; argv && *argv; argv++) {
		proc_escape_c(&sb, *argv);
		strbuf_addch(&sb, '\n');
	}
	ret = bundle_dir_write(bd, rel, sb.buf, sb.len, err);
	strbuf_release(&sb);
	return ret;
}
