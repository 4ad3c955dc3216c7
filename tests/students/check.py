#!/usr/bin/env python3
"""Grades each student-style wrong kernel of this folder and checks the finding.

    python3 tests/students/check.py CUDALAB PROJECT_DIR [-j JOBS] [NAMES...]

CUDALAB is the cudalab command (build/bin/cudalab), PROJECT_DIR the course's
folder (cudalab check runs there). NAMES picks cases: a lesson (heat), a
case (no_swap) or both (heat/no_swap); none means all of them.

Each LESSON/NAME.diff says above its `---` line:

    // bug: <what is wrong, for a student>
    // finding: <CLASS> <LINE>

and is graded with `CUDALAB check LESSON --file NAME.diff --seed 1 --timeout 20`
(in the sandbox; with --unconfined only when CUDALAB_UNCONFINED=1); a case
whose finding is `timeout` with `--timeout 5`: what it tests is where the stop
is reported, and every core spins until the limit. The case is
as expected when
  1. cudalab exits with 1 (a test or rubric failed), never 0 or 2;
  2. for a CLASS other than `wrong`, the output has the class's word (memcheck,
     racecheck, synccheck, initcheck; `crash` for crash; `timed out` or `time`
     for timeout) and NAME.cu:LINE, the student's line (the patched file is
     compiled as NAME.cu);
  3. the output never points into cudalab or the standard library
     (simulator/src/, /usr/include/c++, unique_ptr.h).
One line per case (in the cases' order), then `N of M cases as expected`;
exits 0 only when all are. Standard library only; JOBS cases are graded at
once (default 2).
"""
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

CLASSES = ("memcheck", "racecheck", "synccheck", "initcheck", "crash", "timeout", "wrong")
FORBIDDEN = ("simulator/src/", "/usr/include/c++", "unique_ptr.h")
CASE_SECONDS = 600  # a backstop for one whole `cudalab check`


class Case:
    def __init__(self, path: Path):
        self.path = path
        self.lesson = path.parent.name
        self.name = path.stem
        self.bug = None
        self.cls = None
        self.line = None
        self.problem = None  # a malformed header
        self._read_header()

    @property
    def label(self):
        return f"{self.lesson}/{self.name}"

    def _read_header(self):
        try:
            text = self.path.read_text()
        except OSError as e:
            self.problem = f"cannot read it: {e}"
            return
        for raw in text.splitlines():
            if raw.startswith("--- "):
                break
            m = re.match(r"^// bug:\s*(.+)$", raw)
            if m:
                self.bug = m.group(1)
                continue
            m = re.match(r"^// finding:\s*(\S+)\s+(\d+)\s*$", raw)
            if m:
                self.cls, self.line = m.group(1), int(m.group(2))
        if self.cls is None:
            self.problem = "no `// finding: CLASS LINE` line above its `---` line"
        elif self.cls not in CLASSES:
            self.problem = f"unknown class {self.cls!r} (one of {', '.join(CLASSES)})"
        elif not self.bug:
            self.problem = "no `// bug: ...` line above its `---` line"


def find_cases(folder: Path, names):
    cases = [Case(p) for p in sorted(folder.glob("*/*.diff"))]
    if not names:
        return cases, []
    chosen, unknown = [], []
    for want in names:
        hit = [c for c in cases if want in (c.lesson, c.name, c.label)]
        if not hit:
            unknown.append(want)
        for c in hit:
            if c not in chosen:
                chosen.append(c)
    return chosen, unknown


def class_word_present(cls, output):
    low = output.lower()
    if cls == "crash":  # a crash, or a kernel stopped at a fault as on a GPU
        return "crash" in low or "illegal" in low or "stopped at" in low
    if cls == "timeout":
        return "timed out" in low or "time" in low
    return cls in low


def class_word_text(cls):
    return {"crash": "'crash', 'illegal' or 'stopped at'",
            "timeout": "'timed out' or 'time'"}.get(cls, repr(cls))


def relevant_lines(case, output, reasons):
    """Up to 3 lines of the output that show what it said instead (all that
    the compiler said, up to 40 lines, when the file did not compile)."""
    lines = [l.rstrip() for l in output.splitlines() if l.strip()]
    if "the file did not compile" in output:
        # All the compiler said: a case that builds with the solution's
        # code must not fail to compile, and why it did is the whole story.
        start = next((i + 1 for i, l in enumerate(lines) if "building in the sandbox" in l), 0)
        return lines[start:start + 40]
    if any(r.startswith("points into") for r in reasons):
        picked = [l for l in lines if any(f in l for f in FORBIDDEN)]
        if picked:
            return picked[:3]
    if any(r.startswith("exit code") for r in reasons):
        fails = [l for l in lines if l.lstrip().startswith(("FAIL", "cudalab:", "error"))]
        return (fails or lines[-3:])[:3]
    # Where the output points instead: the student's other lines and the
    # places it could not name, in order and once each; else the first
    # failing test with what it said.
    pointed, seen = [], set()
    for l in lines:
        shown = re.sub(r"^\s*\|\s?", "", l).strip()  # cudalab quotes a program's lines with |
        if (f"{case.name}.cu:" in l or "unknown line" in l) and shown not in seen:
            seen.add(shown)
            pointed.append(shown)
    if pointed:
        return pointed[:3]
    for i, l in enumerate(lines):
        if l.lstrip().startswith("FAIL"):
            return lines[i : i + 3]
    return lines[-3:]


def run_case(cudalab, project, case, unconfined):
    if case.problem:
        return False, [case.problem], []
    limit = "5" if case.cls == "timeout" else "20"
    cmd = [cudalab, "check", case.lesson, "--file", str(case.path), "--seed", "1", "--timeout", limit]
    if unconfined:
        cmd.append("--unconfined")
    try:
        p = subprocess.run(cmd, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=CASE_SECONDS)
        output, rc = p.stdout.decode("utf-8", "replace"), p.returncode
    except subprocess.TimeoutExpired as e:
        output = (e.stdout or b"").decode("utf-8", "replace")
        return False, [f"cudalab check did not end in {CASE_SECONDS} s"], \
            [l for l in output.splitlines() if l.strip()][-3:]
    except OSError as e:
        return False, [f"cannot run {cudalab}: {e}"], []
    reasons = []
    if rc != 1:
        why = {0: "every test passed", 2: "the grading could not run"}.get(rc, "")
        reasons.append(f"exit code {rc}, not 1" + (f" ({why})" if why else ""))
    if case.cls != "wrong":
        if not class_word_present(case.cls, output):
            reasons.append(f"no {class_word_text(case.cls)} in the output")
        where = f"{case.name}.cu:{case.line}"
        if not re.search(re.escape(where) + r"(?!\d)", output):
            reasons.append(f"no {where} in the output")
    bad = [f for f in FORBIDDEN if f in output]
    if bad:
        reasons.append("points into " + ", ".join(bad))
    if not reasons:
        return True, [], []
    return False, reasons, relevant_lines(case, output, reasons)


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        return 2
    args = argv[1:]
    jobs = 2
    if "-j" in args:
        at = args.index("-j")
        try:
            jobs = int(args[at + 1])
            if jobs < 1:
                raise ValueError
        except (IndexError, ValueError):
            sys.stderr.write("check.py: -j needs a number of cases at once, 1 or more\n")
            return 2
        del args[at : at + 2]
    if len(args) < 2:
        sys.stderr.write(__doc__)
        return 2
    argv = [argv[0]] + args
    cudalab = argv[1]
    if os.sep in cudalab or os.path.exists(cudalab):
        cudalab = str(Path(cudalab).resolve())
    project = Path(argv[2]).resolve()
    if not project.is_dir():
        sys.stderr.write(f"check.py: {project} is not a folder\n")
        return 2
    folder = Path(__file__).resolve().parent
    cases, unknown = find_cases(folder, argv[3:])
    if unknown:
        sys.stderr.write(f"check.py: no case named {', '.join(unknown)}\n")
        return 2
    if not cases:
        sys.stderr.write(f"check.py: no LESSON/NAME.diff under {folder}\n")
        return 2
    unconfined = os.environ.get("CUDALAB_UNCONFINED") == "1"
    good = 0
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = [pool.submit(run_case, cudalab, project, case, unconfined) for case in cases]
        # In the cases' order, each as soon as it and those before it are done.
        for case, result in zip(cases, results):
            good += report(case, *result.result())
    print(f"{good} of {len(cases)} cases as expected")
    return 0 if good == len(cases) else 1


def report(case, ok, reasons, said):
    """Prints one case's line (and what the output said instead); 1 when as expected."""
    what = f"{case.cls} {case.line}" if case.cls else "?"
    if ok:
        print(f"PASS {case.label} ({what})", flush=True)
        return 1
    print(f"FAIL {case.label} ({what}): {'; '.join(reasons)}", flush=True)
    for line in said[:3]:
        print(f"    | {line.strip()[:300]}", flush=True)
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv))
