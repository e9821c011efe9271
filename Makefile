# llmprof: a thin wrapper over CMake + Ninja + CTest.
#   make                     build everything possible into build/
#   make test                install missing packages, build, run every test
#   make demo                profile the built-in default workload
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

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja \
		-DLLMPROF_DEVELOPER=$(if $(filter 1,$(DEVELOPER)),ON,OFF) \
		-DLLMPROF_SANITIZE=$(SANITIZE) $(CMAKE_FLAGS) >/dev/null

test: all
	cd $(BUILD) && ctest --output-on-failure -LE gpu -j $(JOBS)

demo: all
	./$(BUILD)/llmprof profile

# bin/llmprof, lib/llmprof/ (tracer), libexec/llmprof/ (workloads),
# share/llmprof/conf/, the man page and the bash completion (cmake/install.cmake)
install: all
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

clean:
	rm -rf build build-sanitize

format:
	clang-format -i $$(git ls-files '*.c' '*.h')
