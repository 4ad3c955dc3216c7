#!/usr/bin/env python3
"""Runs the tests a file describes in its comment lines, in the manner of
LLVM's lit and FileCheck: commands (RUN), the exit status they must give
(EXIT), and the lines their output must hold (CHECK). CMake registers one
CTest test per TEST line (tests/lit/lit.cmake); tests/lit/README.md is the
reference of the directives.

Exit status: 0 passed, 1 failed, 77 skipped (a REQUIRES is not met),
2 the file or the command line is wrong."""

import argparse
import difflib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

PASS, FAIL, SKIP, MALFORMED = 0, 1, 77, 2

# Directives that may come before the first TEST (they concern the file).
FILE_LEVEL = {"BUILD", "REQUIRES"}
# Directives of a test, after its TEST line.
TEST_LEVEL = {"LABELS", "PROPERTIES", "REQUIRES", "RUN", "EXIT", "SKIP-EXIT",
              "CHECK", "CHECK-NEXT", "CHECK-SAME", "CHECK-EMPTY", "CHECK-NOT"}
KNOWN = FILE_LEVEL | TEST_LEVEL | {"TEST"}
CHECKS = {"CHECK", "CHECK-NEXT", "CHECK-SAME", "CHECK-EMPTY", "CHECK-NOT"}

# A directive: "// WORD: text" at the start of a line.
DIRECTIVE = re.compile(r"^// ([A-Z][A-Z0-9-]*):(?:[ \t](.*)|)$")
# A line that looks like a misspelt directive anywhere in the file.
LOOKS_LIKE = re.compile(r"^\s*//\s*([A-Z][A-Z0-9-]*)\s*:")

USAGE_EPILOG = """\
directives (comment lines at the start of a line, best at the end of the file):
  // BUILD: [args]         how CMake builds %bin from this file (read by CMake)
  // REQUIRES: f, !g       skip (77) unless feature f is there and g is not;
                           before the first TEST: for the whole file
  // TEST: name            starts a test (its CTest name)
  // LABELS: a;b           its CTest labels (read by CMake)
  // PROPERTIES: K V ...   more CTest properties (read by CMake)
  // RUN: command          run by bash -o pipefail in the scratch folder %t,
                           stdout and stderr together; a line ending in \\
                           goes on in the next RUN line
  // EXIT: N               the status the RUN above must exit with (else 0)
  // SKIP-EXIT: N          the RUN above exiting N skips the test
  // CHECK: text           a line of the RUN's output holds text, after the
                           previous CHECK's match; {{regex}} inside text
  // CHECK-NEXT: text      ... on the line after the previous match
  // CHECK-SAME: text      ... on the previous match's line, after it
  // CHECK-EMPTY:          the line after the previous match is empty
  // CHECK-NOT: text       no match between the previous match and the next
substitutions (RUN and CHECK lines): %s the file, %S its folder, %t the
scratch folder, %% a percent sign, and %name or %{name} for each --set
name=value (%{name-N}, %{name+N}: a number's value less or plus N); an
unknown name is an error.
features: those of --config and --feature/--no-feature, and at run time
gpu (nvidia-smi -L lists a GPU; CUDALAB_LIT_GPU=yes|no decides instead) and
env:NAME (the environment variable NAME is set and not empty)."""


class Malformed(Exception):
    pass


class Directive:
    def __init__(self, path, line, kind, text):
        self.path, self.line, self.kind, self.text = path, line, kind, text

    def where(self):
        return f"{self.path}:{self.line}"

    def __str__(self):
        return f"{self.where()}: {self.kind}: {self.text}".rstrip()


class Run:
    def __init__(self, directive, command):
        self.directive = directive
        self.command = command
        self.exit = 0
        self.exit_given = None
        self.skip_exit = None
        self.checks = []


class Test:
    def __init__(self, directive):
        self.directive = directive
        self.name = directive.text
        self.requires = []  # (directive, [feature...])
        self.runs = []


class TestFile:
    def __init__(self, path):
        self.path = path
        self.requires = []
        self.build = None
        self.tests = []


def parse(path):
    """Reads the directives of a file; raises Malformed where they are wrong."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise Malformed(f"{path}: cannot read it: {e.strerror}")
    tf = TestFile(path)
    test = None
    started = False  # a directive was seen: then any "// WORD:" is one too
    continued = None  # the RUN whose line ended in a backslash
    for number, raw in enumerate(lines, 1):
        line = raw.rstrip("\r")
        m = DIRECTIVE.match(line)
        loose = LOOKS_LIKE.match(line)
        if not m:
            if continued is not None:
                raise Malformed(f"{path}:{continued.directive.line}: the RUN line ends in a "
                                f"backslash, but line {number} is not a RUN line")
            if loose and known_stem(loose.group(1)):
                raise Malformed(f"{path}:{number}: '{line.strip()}' is not a directive: write "
                                f"'// {loose.group(1)}: ...' at the start of the line")
            continue
        kind, text = m.group(1), (m.group(2) or "").strip()
        if kind not in KNOWN:
            if started or known_stem(kind):
                hint = difflib.get_close_matches(kind, sorted(KNOWN), n=1)
                raise Malformed(f"{path}:{number}: unknown directive {kind}:"
                                + (f" (did you mean {hint[0]}:?)" if hint else ""))
            continue  # prose above the directives, such as "// NOTE: ..."
        started = True
        d = Directive(path, number, kind, text)
        if continued is not None:
            if kind != "RUN":
                raise Malformed(f"{path}:{continued.directive.line}: the RUN line ends in a "
                                f"backslash, but line {number} is not a RUN line")
            continued.command = continued.command[:-1].rstrip() + " " + text
            if not continued.command.endswith("\\"):
                continued = None
            continue
        if test is None and kind not in FILE_LEVEL and kind != "TEST":
            raise Malformed(f"{d.where()}: {kind} before the first TEST line "
                            "(only BUILD and REQUIRES concern the whole file)")
        if kind == "TEST":
            if not text or re.search(r"\s", text):
                raise Malformed(f"{d.where()}: TEST needs a name without spaces")
            if any(t.name == text for t in tf.tests):
                raise Malformed(f"{d.where()}: a second test named {text}")
            test = Test(d)
            tf.tests.append(test)
        elif kind == "BUILD":
            if test is not None:
                raise Malformed(f"{d.where()}: BUILD concerns the file: put it before the "
                                "first TEST")
            if tf.build is not None:
                raise Malformed(f"{d.where()}: a second BUILD line")
            tf.build = d
        elif kind == "REQUIRES":
            features = [f.strip() for f in text.split(",")]
            if not text or any(not re.fullmatch(r"!?[A-Za-z0-9_.:+-]+", f) for f in features):
                raise Malformed(f"{d.where()}: REQUIRES takes features separated by commas, "
                                "each maybe with ! before it")
            (test.requires if test else tf.requires).append((d, features))
        elif kind in ("LABELS", "PROPERTIES"):
            if not text:
                raise Malformed(f"{d.where()}: {kind} without a value")
        elif kind == "RUN":
            if not text:
                raise Malformed(f"{d.where()}: RUN without a command")
            run = Run(d, text)
            test.runs.append(run)
            if text.endswith("\\"):
                continued = run
        elif kind in ("EXIT", "SKIP-EXIT"):
            if not test.runs:
                raise Malformed(f"{d.where()}: {kind} before any RUN of {test.name}")
            run = test.runs[-1]
            if not re.fullmatch(r"[0-9]+", text) or int(text) > 128:
                raise Malformed(f"{d.where()}: {kind} takes a status from 0 to 128 (above "
                                "128 the shell reports a death by a signal, which always fails)")
            if kind == "EXIT":
                if run.exit_given is not None:
                    raise Malformed(f"{d.where()}: a second EXIT for the RUN at line "
                                    f"{run.directive.line}")
                run.exit, run.exit_given = int(text), d
            else:
                if run.skip_exit is not None:
                    raise Malformed(f"{d.where()}: a second SKIP-EXIT for the RUN at line "
                                    f"{run.directive.line}")
                run.skip_exit = int(text)
            if run.skip_exit is not None and run.skip_exit == run.exit:
                raise Malformed(f"{d.where()}: EXIT and SKIP-EXIT give the same status")
        elif kind in CHECKS:
            if not test.runs:
                raise Malformed(f"{d.where()}: {kind} before any RUN of {test.name}: it "
                                "checks the output of the RUN above it")
            run = test.runs[-1]
            if kind == "CHECK-EMPTY":
                if text:
                    raise Malformed(f"{d.where()}: CHECK-EMPTY takes no text")
            elif not text:
                raise Malformed(f"{d.where()}: {kind} without a text (CHECK-EMPTY checks "
                                "for an empty line)")
            if kind in ("CHECK-NEXT", "CHECK-SAME", "CHECK-EMPTY") and not any(
                    c.kind in ("CHECK", "CHECK-NEXT", "CHECK-SAME", "CHECK-EMPTY")
                    for c in run.checks):
                raise Malformed(f"{d.where()}: {kind} needs a CHECK before it (it matches "
                                "relative to the previous match)")
            compile_pattern(d, None)  # its regexes must compile
            run.checks.append(d)
    if continued is not None:
        raise Malformed(f"{path}:{continued.directive.line}: the last RUN line ends in a "
                        "backslash")
    if not tf.tests:
        raise Malformed(f"{path}: no TEST line")
    for t in tf.tests:
        if not t.runs:
            raise Malformed(f"{t.directive.where()}: test {t.name} has no RUN line")
    return tf


def known_stem(word):
    """A word that starts like a directive (CHECK-FOO, RUNS, TESTS...)."""
    return any(word.startswith(k) for k in ("CHECK", "RUN", "TEST", "REQUIRE", "EXIT",
                                            "SKIP-", "LABEL", "PROPERT", "BUILD"))


# --- substitutions --------------------------------------------------------------

SUBST = re.compile(r"%(%|\{([A-Za-z_][A-Za-z0-9_]*)\s*(?:([+-])\s*([0-9]+))?\s*\}"
                   r"|([A-Za-z_][A-Za-z0-9_]*)|\{[^}]*\}?|)")


def substitute(directive, text, values, quote=lambda v: v):
    """Replaces %name, %{name}, %{name-N} and %% in text; quote() is applied
    to each value put in (a regex escape for CHECK lines)."""

    def one(m):
        if m.group(1) == "%":
            return quote("%")
        name = m.group(2) or m.group(5)
        if name is None:
            raise Malformed(f"{directive.where()}: '%{m.group(1)}' is no substitution "
                            "(write %% for a percent sign)")
        if name not in values:
            known = ", ".join("%" + k for k in sorted(values))
            raise Malformed(f"{directive.where()}: unknown substitution %{name} "
                            f"(known here: {known}; %% is a percent sign)")
        value = values[name]
        if m.group(3):
            if not re.fullmatch(r"-?[0-9]+", value):
                raise Malformed(f"{directive.where()}: %{{{name}{m.group(3)}{m.group(4)}}}: "
                                f"%{name} is not a whole number ({value})")
            n = int(m.group(4))
            value = str(int(value) + (n if m.group(3) == "+" else -n))
        return quote(value)

    return SUBST.sub(one, text)


# --- CHECK patterns ---------------------------------------------------------------

def compile_pattern(directive, values):
    """The regex of a CHECK line: its text taken literally, but for {{regex}}
    spans; a run of spaces and tabs matches any run of them (as FileCheck
    does). With values None, only checks that it compiles (the values are
    put in when it runs)."""
    text = directive.text
    parts = []
    pos = 0
    while True:
        start = text.find("{{", pos)
        literal = text[pos:] if start < 0 else text[pos:start]
        parts.append(literal_regex(directive, literal, values))
        if start < 0:
            break
        end = text.find("}}", start + 2)
        if end < 0:
            raise Malformed(f"{directive.where()}: '{{{{' without its '}}}}'")
        regex = text[start + 2:end]
        if values is None:
            regex = SUBST.sub("x", regex)
        else:
            regex = substitute(directive, regex, values, re.escape)
        parts.append("(?:" + regex + ")")
        pos = end + 2
    try:
        return re.compile("".join(parts))
    except re.error as e:
        raise Malformed(f"{directive.where()}: the regex of {directive.kind} does not "
                        f"compile: {e}")


def literal_regex(directive, literal, values):
    def blanks(s):
        return r"[ \t]+".join(re.escape(w) for w in re.split(r"[ \t]+", s))

    out = []
    pos = 0
    for m in SUBST.finditer(literal):
        out.append(blanks(literal[pos:m.start()]))
        out.append("x" if values is None else
                   substitute(directive, m.group(0), values, re.escape))
        pos = m.end()
    out.append(blanks(literal[pos:]))
    return "".join(out)


class Mismatch(Exception):
    def __init__(self, directive, message, near=None):
        super().__init__(message)
        self.directive, self.message, self.near = directive, message, near


def check_output(run, output, values):
    """Matches the RUN's CHECK lines against its output, FileCheck's way;
    raises Mismatch at the first that fails."""
    lines = output.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    line, col = 0, 0  # where the previous match ended
    matched_line = None  # the line of the previous match
    nots = []

    def find(pattern, first):
        for i in range(first, len(lines)):
            m = pattern.search(lines[i], col if i == line else 0)
            if m:
                return i, m
        return None, None

    def check_nots(end_line, end_col):
        for d, pattern in nots:
            for i in range(line, min(end_line, len(lines) - 1) + 1):
                start = col if i == line else 0
                stop = end_col if i == end_line else len(lines[i])
                if pattern.search(lines[i], start, stop):
                    raise Mismatch(d, f"output line {i + 1} matches it:\n  {lines[i]}")
        nots.clear()

    for d in run.checks:
        pattern = compile_pattern(d, values) if d.kind != "CHECK-EMPTY" else None
        if d.kind == "CHECK-NOT":
            nots.append((d, pattern))
            continue
        if d.kind == "CHECK":
            i, m = find(pattern, line)
            if m is None:
                where = (f"after the previous match (on output line {line + 1})"
                         if matched_line is not None else "")
                raise Mismatch(d, f"no line of the output {where} matches it "
                               f"({len(lines)} lines in all)".replace("  ", " "), line)
        elif d.kind == "CHECK-SAME":
            i, m = matched_line, pattern.search(lines[matched_line], col)
            if m is None:
                raise Mismatch(d, f"output line {i + 1}, after the previous match, does not "
                               f"match it:\n  {lines[i]}", i)
        else:  # CHECK-NEXT, CHECK-EMPTY: on the line after the previous match
            i = matched_line + 1
            if i >= len(lines):
                raise Mismatch(d, f"the output ends at line {len(lines)}, the previous "
                               "match's line", i)
            m = re.compile("^$").search(lines[i]) if pattern is None else pattern.search(lines[i])
            if m is None:
                what = "is not empty" if pattern is None else "does not match it"
                raise Mismatch(d, f"output line {i + 1}, the next after the previous match, "
                               f"{what}:\n  {lines[i]}", i)
        check_nots(i, m.start())
        line, col, matched_line = i, m.end(), i
    check_nots(len(lines) - 1, len(lines[-1]) if lines else 0)


# --- features ---------------------------------------------------------------------

def have_gpu():
    forced = os.environ.get("CUDALAB_LIT_GPU", "").lower()
    if forced in ("yes", "no"):
        return forced == "yes", "CUDALAB_LIT_GPU=no"
    try:
        r = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False, "no NVIDIA GPU here (no nvidia-smi)"
    if r.returncode == 0 and re.search(r"^GPU \d", r.stdout, re.M):
        return True, ""
    return False, "no NVIDIA GPU here (nvidia-smi -L lists none)"


def unmet(requires, features, why):
    """The reason the first feature not met, or None when all are."""
    for d, names in requires:
        for name in names:
            negated = name.startswith("!")
            bare = name.lstrip("!")
            if bare == "gpu":
                present, reason = have_gpu()
                if not present and not reason:
                    reason = "no NVIDIA GPU here"
            elif bare.startswith("env:"):
                var = bare[4:]
                present = bool(os.environ.get(var))
                reason = f"{var} is not set"
            elif bare in features:
                present = features[bare]
                reason = why.get(bare) or f"this build has no {bare}"
            else:
                known = ", ".join(sorted(features) + ["gpu", "env:NAME"])
                raise Malformed(f"{d.where()}: unknown feature {bare} (known: {known})")
            if present and negated:
                return f"not in a build with {bare}"
            if not present and not negated:
                return f"needs {bare}: {reason}"
    return None


# --- running ------------------------------------------------------------------------

def describe_status(code):
    """Says what a status means; (text, killed by a signal)."""
    if code < 0:
        return f"was killed by {signal_name(-code)}", True
    if code > 128 and signal_name(code - 128, None):
        return (f"exited with {code}, the shell's status for a death by "
                f"{signal_name(code - 128)}"), True
    return f"exited with {code}", False


def signal_name(number, default="an unknown signal"):
    try:
        return f"{signal.Signals(number).name} (signal {number})"
    except ValueError:
        return default if default is None else f"signal {number}"


def tail(output, count=30):
    lines = output.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        return "  (no output)"
    first = max(0, len(lines) - count)
    head = "" if first == 0 else f"  (the last {len(lines) - first} of {len(lines)} lines)\n"
    return head + "\n".join(f"  {i + 1:>5} | {lines[i]}" for i in range(first, len(lines)))


def around(output, index, count=5):
    lines = output.split("\n")
    first, last = max(0, index - 1), min(len(lines), index + count)
    return "\n".join(f"  {i + 1:>5} | {lines[i]}" for i in range(first, last))


def run_test(tf, test, values, features, why, scratch, verbose):
    reason = unmet(tf.requires + test.requires, features, why)
    if reason:
        print(f"{test.name}: skipped: {reason}")
        return SKIP
    # Every substitution is checked before anything runs.
    commands = [substitute(r.directive, r.command, values) for r in test.runs]
    for r in test.runs:
        for d in r.checks:
            if d.kind != "CHECK-EMPTY":
                compile_pattern(d, values)
    for number, (run, command) in enumerate(zip(test.runs, commands), 1):
        print(f"RUN {number} ({run.directive.where()}):\n  {command}", flush=True)
        result = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=scratch,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        output = result.stdout.decode("utf-8", errors="replace")
        saved = os.path.join(scratch, f"run{number}.out")
        try:
            with open(saved, "w", encoding="utf-8") as f:
                f.write(output)
        except OSError:
            saved = None
        if verbose:
            print(tail(output, 10 ** 9))
        status, signalled = describe_status(result.returncode)
        if signalled or result.returncode != run.exit:
            if not signalled and run.skip_exit == result.returncode:
                last = [l for l in output.split("\n") if l.strip()]
                print(f"{test.name}: skipped: the RUN {status} (SKIP-EXIT)"
                      + (f": {last[-1].strip()}" if last else ""))
                return SKIP
            want = f"{run.exit}" + (f" (EXIT at line {run.exit_given.line})"
                                    if run.exit_given else "")
            print(f"FAIL: {test.name}: {run.directive.where()}: the RUN {status}, "
                  f"where it must exit with {want}")
            print(f"  command: {command}")
            print(f"the end of its output{' (all of it in ' + saved + ')' if saved else ''}:")
            print(tail(output))
            return FAIL
        try:
            check_output(run, output, values)
        except Mismatch as e:
            print(f"FAIL: {test.name}: {e.directive.where()}: {e.directive.kind}: "
                  f"{e.directive.text}")
            print(f"  {e.message}")
            print(f"  of the output of the RUN at {run.directive.where()}:\n  {command}")
            if e.near is not None and e.near < len(output.split("\n")) - 30:
                print("where the search started:")
                print(around(output, e.near))
            print(f"the end of its output{' (all of it in ' + saved + ')' if saved else ''}:")
            print(tail(output))
            return FAIL
        checks = len(run.checks)
        print(f"  exit {result.returncode}" + (f", {checks} CHECK lines matched" if checks else ""))
    print(f"{test.name}: passed")
    return PASS


def load_config(args):
    values, features, why, scratch_root = {}, {}, {}, None
    if args.config:
        try:
            with open(args.config, encoding="utf-8") as f:
                config = json.load(f)
        except (OSError, ValueError) as e:
            raise Malformed(f"--config {args.config}: {e}")
        values.update({k: str(v) for k, v in config.get("set", {}).items()})
        features.update({k: bool(v) for k, v in config.get("features", {}).items()})
        why.update(config.get("why", {}))
        scratch_root = config.get("scratch")
    for s in args.set:
        name, eq, value = s.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise Malformed(f"--set {s}: give NAME=VALUE")
        values[name] = value
    for f in args.feature:
        features[f] = True
    for f in args.no_feature:
        name, _, reason = f.partition(":")
        features[name] = False
        if reason:
            why[name] = reason
    if args.scratch:
        scratch_root = args.scratch
    return values, features, why, scratch_root


def main(argv):
    parser = argparse.ArgumentParser(
        prog="lit.py", description=__doc__.split("\n\n")[0].replace("\n", " "),
        epilog=USAGE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", help="a test program (.cu, .cpp) or a scenario (.test)")
    parser.add_argument("--test", metavar="NAME",
                        help="run this test of the file (default: all of them)")
    parser.add_argument("--list", action="store_true", help="list the file's tests and stop")
    parser.add_argument("--config", metavar="JSON",
                        help='substitutions, features and scratch root, as CMake writes them: '
                        '{"set": {NAME: VALUE}, "features": {NAME: true|false}, '
                        '"why": {NAME: REASON}, "scratch": FOLDER}')
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="the substitution %%NAME (over --config's)")
    parser.add_argument("--feature", action="append", default=[], metavar="NAME",
                        help="a feature this build has")
    parser.add_argument("--no-feature", action="append", default=[], metavar="NAME[:REASON]",
                        help="a feature this build lacks, and why (the skip message)")
    parser.add_argument("--scratch", metavar="FOLDER",
                        help="where the tests' scratch folders go (%%t is FOLDER/TEST, made "
                        "afresh and kept); default: a temporary folder, removed after a pass")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print every RUN's whole output")
    args = parser.parse_args(argv)
    try:
        tf = parse(args.file)
        if args.list:
            for t in tf.tests:
                print(t.name)
            return PASS
        values, features, why, scratch_root = load_config(args)
        for t in tf.tests:  # a template's names: gpu.%lesson.program
            t.name = substitute(t.directive, t.name, values)
        tests = tf.tests
        if args.test:
            tests = [t for t in tf.tests if t.name == args.test]
            if not tests:
                raise Malformed(f"{args.file} has no test {args.test} (it has: "
                                + ", ".join(t.name for t in tf.tests) + ")")
        path = os.path.abspath(args.file)
        values.update({"s": path, "S": os.path.dirname(path)})
        results = []
        for t in tests:
            if scratch_root:
                scratch = os.path.join(os.path.abspath(scratch_root), t.name)
                shutil.rmtree(scratch, ignore_errors=True)
                os.makedirs(scratch)
            else:
                scratch = tempfile.mkdtemp(prefix="lit-")
            values["t"] = scratch
            result = run_test(tf, t, values, features, why, scratch, args.verbose)
            if not scratch_root and result != FAIL:
                shutil.rmtree(scratch, ignore_errors=True)
            results.append(result)
    except Malformed as e:
        print(f"lit.py: error: {e}", file=sys.stderr)
        return MALFORMED
    if FAIL in results:
        return FAIL
    if results and all(r == SKIP for r in results):
        return SKIP
    return PASS


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
