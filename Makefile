# llmprof: a thin wrapper over CMake + Ninja + CTest.
#   make                     build everything possible into build/
#   make test                install missing packages, build, run every test
#   make demo                build only what profiling needs, then profile the
#                            built-in default workload
#   make install             install into $(PREFIX) (default /usr/local); DESTDIR=... stages it
#   make DEVELOPER=1         warnings are errors
#   make SANITIZE=address,undefined   ASan+UBSan build (in build-sanitize/)
SANITIZE ?=
DEVELOPER ?= 0
ifeq ($(SANITIZE),)
BUILD ?= build
else
BUILD ?= build-sanitize
endif
CMAKE_FLAGS ?=
PREFIX ?= /usr/local
DESTDIR ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps configure test demo clean format check-format install

all: configure
	cmake --build $(BUILD) -j $(JOBS)

deps:
	@bash scripts/install-deps.sh

# cmake's own lines go to $(BUILD)/configure.log (all of it on an error);
# the terminal gets what is configured and what CUDA parts it found.
configure: deps
	@echo "configure: cmake -S . -B $(BUILD) -G Ninja (log: $(BUILD)/configure.log)"
	@mkdir -p $(BUILD) && bash scripts/heartbeat.sh --log $(BUILD)/configure.log configure \
		cmake -S . -B $(BUILD) -G Ninja \
		-DLLMPROF_DEVELOPER=$(if $(filter 1,$(DEVELOPER)),ON,OFF) \
		-DLLMPROF_SANITIZE=$(SANITIZE) $(CMAKE_FLAGS); \
	rc=$$?; grep '^-- llmprof:' $(BUILD)/configure.log; \
	[ $$rc -eq 0 ] || { cat $(BUILD)/configure.log >&2; exit $$rc; }

# Before the tests: what the run downloads, if anything (NVIDIA's CLIs for the
# cross-checks: scripts/nsight-cli-oracle.sh). After: each skipped test with
# its reason (scripts/test-skips.sh), since ctest shows only "***Skipped".
test: all
	@bash scripts/nsight-cli-oracle.sh --announce
	@mkdir -p $(BUILD)/Testing && rm -f $(BUILD)/Testing/ctest.rc
	cd $(BUILD) && { ctest --output-on-failure -LE gpu -j $(JOBS); echo $$? >Testing/ctest.rc; } 2>&1 | tee Testing/ctest.out
	@bash scripts/test-skips.sh $(BUILD)
	@exit $$(cat $(BUILD)/Testing/ctest.rc 2>/dev/null || echo 1)

# demo-deps (CMakeLists.txt): the CLI, the builtin tracer and the built-in
# llm workload, not the tests; heartbeat.sh speaks up while nvcc is silent.
demo: configure
	@echo "build: llmprof, the builtin tracer (with the CUDA toolkit) and the built-in llm workload, not the tests (cmake --build $(BUILD) --target demo-deps)"
	@bash scripts/heartbeat.sh build cmake --build $(BUILD) -j $(JOBS) --target demo-deps
	$(BUILD)/llmprof profile

# bin/llmprof, lib/llmprof/ (tracer), libexec/llmprof/ (workloads),
# share/llmprof/conf/, the man page and the bash completion (cmake/install.cmake)
install: all
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

clean:
	rm -rf build build-sanitize

# format rewrites every tracked C file with .clang-format; check-format
# fails (listing them) when one differs, as CI runs it.
format:
	clang-format -i $$(git ls-files '*.c' '*.h')

check-format:
	@bad=$$(for f in $$(git ls-files '*.c' '*.h'); do \
		clang-format --dry-run --Werror "$$f" >/dev/null 2>&1 || echo "$$f"; done); \
	if [ -n "$$bad" ]; then echo "check-format: not formatted (run 'make format'):"; echo "$$bad"; exit 1; fi; \
	echo "check-format: every tracked C file is formatted"

