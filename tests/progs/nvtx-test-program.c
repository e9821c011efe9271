/* nvtx-test-program: uses NVTX in every way the builtin tracer records, with
 * deterministic structure (timestamps vary, counts and nesting do not).
 * tests/cli/test-tracer-nvtx.sh checks the resulting SQLite exactly. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wchar.h>

#include <nvtx3/nvToolsExt.h>

static nvtxDomainHandle_t dom;
static nvtxRangeId_t cross_id;

static void *worker(void *arg)
{
	int i;
	(void)arg;
	nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), "worker");
	for (i = 0; i < 3; i++) {
		nvtxRangePushA("worker_step");
		nvtxRangePop();
	}
	nvtxRangeEnd(cross_id); /* started on the main thread */
	return NULL;
}

int main(int argc, char **argv)
{
	nvtxEventAttributes_t a;
	nvtxStringHandle_t reg;
	pthread_t th;
	int i;

	nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), "main");
	nvtxNameCategoryA(7, "io");

	/* Default domain: ASCII and Unicode push/pop, nesting. */
	nvtxRangePushA("outer");
	nvtxRangePushW(L"inner\u00e9");
	nvtxMarkA("mark_ascii");
	nvtxRangePop();
	nvtxRangePop();

	/* A named domain with registered strings, categories, colors, payloads. */
	dom = nvtxDomainCreateA("LLM");
	nvtxDomainNameCategoryA(dom, 1, "stage");
	reg = nvtxDomainRegisterStringA(dom, "decode_step");
	memset(&a, 0, sizeof(a));
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "prefill";
	a.category = 1;
	a.colorType = NVTX_COLOR_ARGB;
	a.color = 0xff00ff00u;
	a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
	a.payload.ullValue = 42;
	nvtxDomainRangePushEx(dom, &a);
	nvtxDomainRangePop(dom);
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "decode_all";
	a.colorType = NVTX_COLOR_UNKNOWN;
	a.payloadType = NVTX_PAYLOAD_UNKNOWN;
	nvtxDomainRangePushEx(dom, &a);
	for (i = 0; i < 4; i++) {
		a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
		a.message.registered = reg;
		nvtxDomainRangePushEx(dom, &a);
		nvtxDomainRangePop(dom);
	}
	nvtxDomainRangePop(dom);
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "domain_mark";
	nvtxDomainMarkEx(dom, &a);

	/* Start/end: same thread, unicode, and one ended on another thread. */
	{
		nvtxRangeId_t id = nvtxRangeStartA("startend_same");
		nvtxRangeEnd(id);
		id = nvtxRangeStartW(L"startend_wide");
		nvtxRangeEnd(id);
		a.messageType = NVTX_MESSAGE_TYPE_ASCII;
		a.message.ascii = "domain_startend";
		id = nvtxDomainRangeStartEx(dom, &a);
		nvtxDomainRangeEnd(dom, id);
	}
	cross_id = nvtxRangeStartA("cross_thread");
	if (pthread_create(&th, NULL, worker, NULL) != 0)
		return 1;
	pthread_join(th, NULL);
	/* fork: the child records and exits; fork-_exit: and ends with
	 * _exit() as Python's multiprocessing children do; fork-exec: the child
	 * exec()s a program without NVTX at once (subprocess) */
	if (argc > 1 && strncmp(argv[1], "fork", 4) == 0) {
		/* A forked child writes its own log (trace-<child pid>.bin). */
		pid_t c = fork();
		if (c == 0) {
			if (strcmp(argv[1], "fork-exec") == 0) {
				execl("/bin/true", "true", (char *)NULL);
				_exit(127);
			}
			nvtxRangePushA("child_range");
			nvtxRangePop();
			if (strcmp(argv[1], "fork-_exit") == 0)
				_exit(0);
			exit(0); /* runs the tracer's exit flush */
		}
		if (c < 0 || waitpid(c, NULL, 0) != c)
			return 1;
	}
	/* name STR: one more range, named STR (hostile names in tests) */
	if (argc > 2 && strcmp(argv[1], "name") == 0) {
		nvtxRangePushA(argv[2]);
		nvtxRangePop();
	}
	puts("nvtx-test-program: done");
	/* ending without exit(): the tracer's exit flush never runs */
	if (argc > 1 && strcmp(argv[1], "_exit") == 0) {
		fflush(stdout);
		_exit(0);
	}
	if (argc > 1 && strcmp(argv[1], "SIGKILL") == 0) {
		fflush(stdout);
		raise(SIGKILL);
	}
	return 0;
}
