#!/usr/bin/env python3
"""doctest.py: the command blocks of README.md and docs/ as tests.

Usage: doctest.py [--update] SOURCE_DIR LLMPROF BUILD_DIR [FILE.md ...]

Every fenced block in README.md and docs/**/*.md must say what it is: a
command block has the info string sh, bash, shell or console; anything else
(output, YAML, JSON, a synopsis) says text, yaml, json... A fence with no info
string fails, so no command block goes unchecked. The line right before each
command block is one marker:

  <!-- doctest: run -->           run each command; each must exit 0
  <!-- doctest: run exit=N -->    ... each must exit N
  run/output needs=PATH           ... only where PATH (in the source tree, or
                                  build/... in the build directory) exists;
                                  elsewhere the block is checked as skip
  <!-- doctest: output -->        a transcript: "$ CMD" lines are commands,
                                  the lines up to the next "$ " its expected
                                  stdout+stderr, compared after the
                                  normalisation below; the exit status
                                  is not checked ("$ echo $?" shows it)
  <!-- doctest: skip REASON -->   not runnable here ("needs a GPU"); each
                                  llmprof command in it is still checked: the
                                  command exists, its options are in
                                  'llmprof CMD --help', and its KEY=VALUE
                                  overrides load ('llmprof config show')

A command block without a marker, a marker on no command block, and an
output block without "$ " lines fail, naming FILE:LINE.

Commands: in a block with "$ " lines those lines are the commands; otherwise
every line but blank ones and "#" comments is one. A line ending in "\\"
continues on the next. All commands of a block run in one bash, in order,
in a fresh scratch directory holding links to the top-level entries of the
source tree (conf, examples, tests, ...; build links to the build
directory), with stdin from /dev/null, LC_ALL=C, TZ=UTC, HOME the scratch
directory and no LLMPROF_* variable. 'llmprof' and 'build/llmprof' run the
binary under test.

Normalisation, applied to the output: the scratch directory becomes
/tmp/doc, the build directory /work/llmprof/build, the source directory
/work/llmprof; then, in both the output and the document, run ids
(20261121-152425-6e89) become <run_id> and other YYYYMMDD-HHMMSS times
<time>. In the expected text a line "..." matches any number of lines (none
included), and "..." inside a line matches any text on that line.

The live status line: when the output differs only by plain status lines
("llmprof: step 3/9 workload, 5 s (total 6 s): ..."), and each says its
step had run at least 5 s (LIVE_PLAIN_EVERY_S, src/cmd/live.h: the line
is printed then and not before), the block matches: a transcript shows a
quick run, and a loaded machine is slow. A status line that says less
than 5 s is printed too early and still fails the block.

--update rewrites the expected output of each output block that differs
(review the diff before committing).
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

COMMAND_LANGS = {"sh", "bash", "shell", "console"}
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`\s]*)")
MARKER = re.compile(r"^\s*<!--\s*doctest:\s*(\S+)\s*(.*?)\s*-->\s*$")
RUN_ID = re.compile(r"\b\d{8}-\d{6}-[0-9a-f]{4}\b")
STAMP = re.compile(r"\b\d{8}-\d{6}\b")
TIMEOUT_S = 120
# live.h's plain status line; group 1 its step's elapsed time
LIVE_LINE = re.compile(r"llmprof: step \d+/\d+ [^,]+, (\d+ s|\d+m\d\ds|\d+h\d\dm) "
                       r"\(total (?:\d+ s|\d+m\d\ds|\d+h\d\dm)\)(?:: .*)?")
LIVE_PLAIN_EVERY_S = 5


class Block:
    def __init__(self, path, line, indent, lang, marker, body, body_line):
        self.path, self.line, self.indent, self.lang = path, line, indent, lang
        self.marker, self.body, self.body_line = marker, body, body_line

    def where(self):
        return "%s:%d" % (self.path, self.line)


def doc_files(src):
    out = [os.path.join(src, "README.md")]
    for root, dirs, files in os.walk(os.path.join(src, "docs")):
        dirs.sort()
        out += [os.path.join(root, f) for f in sorted(files) if f.endswith(".md")]
    return out


def extract(path, rel, problems):
    """The fenced blocks of one file; problems gets FILE:LINE messages."""
    blocks = []
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            mk = MARKER.match(lines[i])
            if mk and not (i + 1 < len(lines) and FENCE.match(lines[i + 1])):
                problems.append("%s:%d: doctest marker not right before a fence" % (rel, i + 1))
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3)
        start = i
        body = []
        i += 1
        while i < len(lines):
            c = lines[i]
            s = c.strip()
            if s.startswith(fence[0] * len(fence)) and s.strip(fence[0]) == "":
                break
            body.append(c[len(indent):] if c.startswith(indent) else c.lstrip())
            i += 1
        i += 1
        mk = MARKER.match(lines[start - 1]) if start > 0 else None
        where = "%s:%d" % (rel, start + 1)
        if not lang:
            problems.append("%s: fenced block without an info string (sh/console for "
                            "commands, text for anything else)" % where)
            continue
        if lang not in COMMAND_LANGS:
            if mk:
                problems.append("%s: doctest marker on a '%s' block" % (where, lang))
            continue
        if not mk:
            problems.append("%s: command block without a doctest marker "
                            "(<!-- doctest: run|output|skip REASON -->)" % where)
            continue
        blocks.append(Block(rel, start + 1, indent, lang, (mk.group(1), mk.group(2)), body,
                            start + 2))
    return blocks


def join_continued(lines):
    """(command, index of its last line) for lines with trailing backslashes."""
    out, cur, first = [], None, 0
    for n, l in enumerate(lines):
        if cur is None:
            cur, first = l, n
        else:
            cur += "\n" + l
        if l.endswith("\\"):
            continue
        out.append((cur, n))
        cur = None
    if cur is not None:
        out.append((cur, len(lines) - 1))
    return out


def parse_block(b):
    """[(command, [expected output lines])]."""
    if any(l.startswith("$ ") or l == "$" for l in b.body):
        cmds = []
        i = 0
        while i < len(b.body):
            l = b.body[i]
            if not l.startswith("$ "):
                if not cmds:
                    raise ValueError("%s: text before the first '$ ' line" % b.where())
                cmds[-1][1].append(l)
                i += 1
                continue
            cmd = l[2:]
            while cmd.endswith("\\") and i + 1 < len(b.body):
                i += 1
                cmd += "\n" + b.body[i]
            cmds.append((cmd, []))
            i += 1
        return cmds
    if b.marker[0] == "output":
        raise ValueError("%s: an output block needs '$ ' command lines" % b.where())
    lines = [l for l in b.body if l.strip() and not l.lstrip().startswith("#")]
    return [(c, []) for c, _ in join_continued(lines)]


BUILD_LLMPROF = re.compile(r"(?<![\w/.-])(?:\./)?build/llmprof(?![\w/.-])")


def scratch_dir(src, build):
    d = tempfile.mkdtemp(prefix="doctest.")
    for e in os.listdir(src):
        if e.startswith(".") or e in ("build", "tmp"):
            continue
        os.symlink(os.path.join(src, e), os.path.join(d, e))
    os.symlink(build, os.path.join(d, "build"))
    return d


def run_block(b, cmds, ctx):
    """Runs the commands; [(rc, output)] with output normalised."""
    d = scratch_dir(ctx["src"], ctx["build"])
    script = ["llmprof() { \"$LLMPROF\" \"$@\"; }", "export -f llmprof", "exec 2>&1"]
    for n, (cmd, _) in enumerate(cmds):
        script.append(BUILD_LLMPROF.sub("llmprof", cmd))
        script.append("__rc=$?; printf '@@doctest %d %%d@@\\n' $__rc; (exit $__rc)" % n)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": d, "TMPDIR": d,
           "LC_ALL": "C", "TZ": "UTC", "TERM": "dumb", "LLMPROF": ctx["llmprof"]}
    try:
        p = subprocess.run(["bash", "-c", "\n".join(script)], cwd=d, env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           timeout=TIMEOUT_S)
        raw = p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        raw = (e.stdout or b"").decode("utf-8", "replace") + "\n(timed out after %d s)\n" % TIMEOUT_S
    finally:
        subprocess.run(["rm", "-rf", d])
    res, pos = [], 0
    for m in re.finditer(r"@@doctest (\d+) (\d+)@@\n", raw):
        res.append((int(m.group(2)), normalise(raw[pos:m.start()], d, ctx)))
        pos = m.end()
    while len(res) < len(cmds):
        res.append((None, normalise(raw[pos:], d, ctx)))
        pos = len(raw)
    return res


def placeholders(text):
    return STAMP.sub("<time>", RUN_ID.sub("<run_id>", text))


def normalise(text, scratch, ctx):
    for path, name in ((scratch, "/tmp/doc"), (ctx["build"], "/work/llmprof/build"),
                       (ctx["src"], "/work/llmprof")):
        for p in {path, os.path.realpath(path)}:
            text = text.replace(p, name)
    return placeholders(text)


def matches(expected, actual):
    pat = ""
    for l in expected:
        if l == "...":
            pat += "(?:.*\n)*?"
        else:
            pat += ".*".join(re.escape(part) for part in l.split("...")) + "\n"
    if actual and not actual.endswith("\n"):
        actual += "\n"
    return re.fullmatch(pat, actual) is not None


def without_slow_live_lines(text):
    """text without the status lines a slow run prints (module docstring);
    a line that claims less than LIVE_PLAIN_EVERY_S stays."""
    def slow(l):
        m = LIVE_LINE.fullmatch(l)
        return m and not (m.group(1).endswith(" s") and int(m.group(1)[:-2]) < LIVE_PLAIN_EVERY_S)
    return "".join(l for l in text.splitlines(True) if not slow(l.rstrip("\n")))


def check_skip(b, cmds, ctx, fails):
    for cmd, _ in cmds:
        if not re.search(r"(?<![\w/.-])(\./)?(build/)?llmprof(?![\w/.-])", cmd):
            continue
        try:
            lex = shlex.shlex(cmd.replace("\\\n", " "), posix=True, punctuation_chars=True)
            lex.whitespace_split = True
            toks = list(lex)
        except ValueError as e:
            fails.append("%s: cannot split '%s': %s" % (b.where(), cmd, e))
            continue
        simple, cur = [], []
        for t in toks:
            if t in ("|", "||", "&&", ";", "&"):
                simple.append(cur)
                cur = []
            else:
                cur.append(t)
        simple.append(cur)
        for words in simple:
            while words and re.match(r"^[A-Za-z_]\w*=", words[0]):
                words = words[1:]
            if not words or not re.fullmatch(r"(\./)?(build/)?llmprof", words[0]):
                continue
            err = check_llmprof(words[1:], ctx)
            if err:
                fails.append("%s: '%s': %s" % (b.where(), " ".join(words), err))


def help_text(ctx, args):
    key = tuple(args)
    if key not in ctx["help"]:
        p = subprocess.run([ctx["llmprof"]] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        ctx["help"][key] = (p.returncode, p.stdout.decode("utf-8", "replace"))
    return ctx["help"][key]


def check_llmprof(args, ctx):
    if not args or args[0].startswith("-"):
        rc, text = help_text(ctx, ["--help"])
        bad = [a for a in args if a.startswith("-") and a not in ("--help", "-h", "--version")]
        return "unknown option %s" % bad[0] if bad else None
    rc, top = help_text(ctx, ["--help"])
    commands = re.findall(r"^  ([a-z]+)  ", top, re.M)
    if args[0] not in commands:
        return "no command '%s' (llmprof --help lists %s)" % (args[0], ", ".join(commands))
    rc, text = help_text(ctx, [args[0], "--help"])
    if rc != 0:
        return "'llmprof %s --help' exited %d" % (args[0], rc)
    overrides = []
    rest = args[1:]
    for i, a in enumerate(rest):
        if a == "--":
            break
        if a.startswith("-") and a != "-":
            opt = a.split("=", 1)[0]
            if not opt.startswith("--") and len(opt) > 2:
                opt = opt[:2]
            if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), text):
                return "option '%s' is not in 'llmprof %s --help'" % (opt, args[0])
        elif args[0] in ("profile", "config") and ("=" in a or a.startswith("~")):
            overrides.append(a)
    if overrides:
        p = subprocess.run([ctx["llmprof"], "config", "show"] + overrides,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL)
        if p.returncode:
            return "overrides do not load: " + p.stderr.decode("utf-8", "replace").strip()
    return None


def update_file(path, edits):
    """edits: [(first body line index, last, new lines)], 0-based in the file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    for first, last, new in sorted(edits, reverse=True):
        lines[first:last] = new
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main(argv):
    update = False
    if argv and argv[0] == "--update":
        update, argv = True, argv[1:]
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    src, llmprof, build = (os.path.abspath(a) if i != 1 else a for i, a in enumerate(argv[:3]))
    ctx = {"src": src, "llmprof": llmprof, "build": os.path.abspath(build), "help": {}}
    files = [os.path.abspath(f) for f in argv[3:]] or doc_files(src)
    problems, fails = [], []
    counts = {"run": 0, "output": 0, "skip": 0, "missing": 0}
    for path in files:
        rel = os.path.relpath(path, src)
        blocks = extract(path, rel, problems)
        edits = []
        for b in blocks:
            kind, arg = b.marker
            try:
                cmds = parse_block(b)
            except ValueError as e:
                problems.append(str(e))
                continue
            want, needs = 0, None
            if kind in ("run", "output"):
                bad = None
                for a in arg.split():
                    m = re.fullmatch(r"(exit|needs)=(\S+)", a)
                    if not m or (m.group(1) == "exit" and (kind != "run" or
                                                          not m.group(2).isdigit())):
                        bad = a
                    elif m.group(1) == "exit":
                        want = int(m.group(2))
                    else:
                        needs = m.group(2)
                if bad:
                    problems.append("%s: bad '%s' argument '%s'" % (b.where(), kind, bad))
                    continue
                if needs and not os.path.exists(os.path.join(ctx["build"], needs[6:])
                                                 if needs.startswith("build/")
                                                 else os.path.join(src, needs)):
                    counts["missing"] += 1
                    kind = "skip"
            if kind == "skip":
                if not arg:
                    problems.append("%s: 'skip' needs a reason" % b.where())
                    continue
                counts["skip"] += 1
                check_skip(b, cmds, ctx, fails)
            elif kind == "run":
                counts["run"] += 1
                for (cmd, _), (rc, out) in zip(cmds, run_block(b, cmds, ctx)):
                    if rc != want:
                        fails.append("%s: '%s' exited %s, not %d:\n%s" %
                                     (b.where(), cmd, rc, want, out.rstrip()[-2000:]))
            elif kind == "output":
                counts["output"] += 1
                new_body = []
                changed = False
                for (cmd, want), (rc, out) in zip(cmds, run_block(b, cmds, ctx)):
                    exp = [placeholders(l) for l in want]
                    new_body.append("$ " + cmd)
                    if matches(exp, out) or matches(exp, without_slow_live_lines(out)):
                        new_body += want
                        continue
                    changed = True
                    new_body += out[:-1].split("\n") if out.endswith("\n") else out.split("\n")
                    fails.append("%s: '%s' printed (normalised):\n%s\n-- the document expects:\n%s"
                                 % (b.where(), cmd, out.rstrip("\n"), "\n".join(exp)))
                if update and changed:
                    body = [(b.indent + l) if l else l for l in "\n".join(new_body).split("\n")]
                    edits.append((b.body_line - 1, b.body_line - 1 + len(b.body), body))
            else:
                problems.append("%s: unknown doctest marker '%s'" % (b.where(), kind))
        if update and edits:
            update_file(path, edits)
    for p in problems + fails:
        print("FAIL: " + p)
    print("doctest: %d run, %d output, %d skip blocks (%d of them for a missing needs= file) "
          "in %d files; %d problems" % (counts["run"], counts["output"], counts["skip"],
                                        counts["missing"], len(files), len(problems + fails)))
    return 1 if problems or fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
