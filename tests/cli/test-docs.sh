#!/usr/bin/env bash
# Docs as tests: every command block in README.md and docs/**/*.md runs, or
# is checked, as its marker says (git's and jq's practice). The convention
# (docs/user-guide.md, "Command blocks are tests"):
#   a fence has an info string; command blocks are sh, bash, shell or console
#   the line before a command block is one marker:
#     <!-- doctest: run -->            each command exits 0 (run exit=N: N)
#     <!-- doctest: output -->         "$ CMD" then its exact output, after
#                                      normalising scratch/build/source paths,
#                                      run ids and timestamps; a line "..."
#                                      matches any lines, "..." in a line any text;
#                                      live status lines of a step that ran
#                                      >= 5 s (a slow machine) are ignored
#     <!-- doctest: skip REASON -->    not run ("needs a GPU"); each llmprof
#                                      command's subcommand, options and
#                                      KEY=VALUE overrides are still checked
#   no marker, a marker on no command block, or a fence without an info
#   string fails, naming FILE:LINE. docs/validation/ (records of past GPU
#   runs) is covered like every other page: its command blocks say skip.
# tests/cli/doctest.py does the work; its header has the details.
# Regenerate transcripts after a deliberate output change:
#   python3 tests/cli/doctest.py --update . build/llmprof build [FILE.md...]
set -u
src=${LLMPROF_SOURCE_DIR:?}
command -v python3 >/dev/null || { echo "skip: no python3 (scripts/install-deps.sh installs it)"; exit 77; }
fail=0

# the checker itself: each broken block below must be reported at its line
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/docs"
cat >"$tmp/src/README.md" <<'MD'
# t
```
no info string
```

```sh
llmprof --version
```

<!-- doctest: output -->
```console
$ echo hello
goodbye
```

<!-- doctest: run -->
```sh
false
```

<!-- doctest: skip needs a GPU -->
```sh
llmprof profile --no-such-option run.mode=deep
llmprof nosuchcommand
llmprof profile run.no_such_key=1
```

<!-- doctest: output -->
```console
$ echo "a 20261121-152425-6e89 b"; echo x; echo y; echo last
a 20990101-000000-abcd ...
...
last
```

<!-- doctest: run -->
```text
not a command block
```

<!-- doctest: run exit=3 -->
```sh
llmprof config show run.top_n_kernels=abc
```

<!-- doctest: output needs=no/such/file -->
```console
$ llmprof profile --no-such-option
never run
```

<!-- doctest: output -->
```console
$ echo a; echo "llmprof: step 3/9 workload, 5 s (total 6 s): NVTX decode_step #3"; echo "llmprof: step 3/9 workload, 1m10s (total 1m11s)"; echo b
a
b
```

<!-- doctest: output -->
```console
$ echo a; echo "llmprof: step 3/9 workload, 4 s (total 4 s)"; echo b
a
b
```
MD
python3 "$src/tests/cli/doctest.py" "$tmp/src" "$LLMPROF" "$LLMPROF_BUILD_DIR" >"$tmp/self.out" 2>&1
rc=$?
for want in "README.md:2: fenced block without an info string" \
	"README.md:6: command block without a doctest marker" \
	"README.md:11: 'echo hello' printed" \
	"README.md:17: 'false' exited 1, not 0" \
	"option '--no-such-option' is not in 'llmprof profile --help'" \
	"no command 'nosuchcommand'" \
	"overrides do not load: llmprof: error: unknown config key 'run.no_such_key'" \
	"README.md:37: doctest marker on a 'text' block" \
	"README.md:47: 'llmprof profile --no-such-option': option '--no-such-option' is not in" \
	"README.md:60: 'echo a; echo \"llmprof: step 3/9 workload, 4 s" \
	"4 output, 2 skip blocks (1 of them for a missing needs= file)"; do
	grep -qF "$want" "$tmp/self.out" || { echo "FAIL: the checker did not report: $want"; fail=1; }
done
grep -q "README.md:29" "$tmp/self.out" && { echo "FAIL: '...' and run-id normalisation did not match"; fail=1; }
grep -q "README.md:42" "$tmp/self.out" && { echo "FAIL: 'run exit=3' did not accept exit 3"; fail=1; }
# a status line a slow machine prints (its step ran 5 s) is no difference;
# one printed before 5 s is (README.md:60, above)
grep -q "README.md:53" "$tmp/self.out" && { echo "FAIL: a slow run's status lines failed the block"; fail=1; }
[ $rc -ne 0 ] || { echo "FAIL: the checker exited 0 on broken blocks"; fail=1; }
[ $fail -eq 0 ] || { echo "-- checker output:"; cat "$tmp/self.out"; }

# the real documents
python3 "$src/tests/cli/doctest.py" "$src" "$LLMPROF" "$LLMPROF_BUILD_DIR" || fail=1
exit $fail
