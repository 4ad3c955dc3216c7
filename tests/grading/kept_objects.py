#!/usr/bin/env python3
"""A file graded again is linked from the objects of its first compile.

usage: kept_objects.py CUDALAB PROJECT_DIR SCRATCH

`cudalab check` keeps the objects of a submission's compile in
grade-cache/objects/ beside the build's bin/ folder, under a key of what the
compile read, and links those when the same file is graded again. Each file
here carries a token of this run, so that its entry is its own. Checked:

  1. a file's first grading keeps one entry, whose `compiled_from` holds the
     file's text; grading it again uses that entry (its time of use moves);
  2. what is linked is the kept objects: the entry of the solution given the
     objects of the untouched exercise grades as the exercise;
  3. an entry whose `compiled_from` is not the file's whole text (a key that
     collided) is not used: the file is compiled again and scores its own;
  4. a program that overwrites its objects in its folder while it runs does
     not change the kept ones: graded again, it scores as before and its
     entry is unchanged.

Prints `kept objects: ok` when all hold.
"""
import hashlib
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

SPOIL = r"""
// Overwrites its own objects in the grading's folder at start-up.
#include <cstdio>
namespace {
struct Spoil {
  Spoil() {
    for (const char* p : {"/submission/cudalab_student.o",
                          "/submission/cudalab_student.o.instrumented"})
      if (std::FILE* f = std::fopen(p, "w")) {
        std::fputs("spoilt", f);
        std::fclose(f);
      }
  }
} spoil;
}  // namespace
"""


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    cudalab, project, scratch = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    kept = cudalab.resolve().parent.parent / "grade-cache" / "objects"
    scratch.mkdir(parents=True, exist_ok=True)
    lesson = project / "lessons" / "vector_add"
    token = uuid.uuid4().hex
    problems = []

    def write(name, text):
        path = scratch / name
        path.write_text(text + f"\n// kept-objects test {name} {token}\n")
        return path

    def grade(path):
        out = scratch / (path.stem + ".json")
        p = subprocess.run([str(cudalab), "check", "vector_add", "--file", str(path), "--seed", "1",
                            "--json", str(out)], capture_output=True, text=True, timeout=600)
        if p.returncode not in (0, 1):
            sys.exit(f"cudalab check {path.name} exited {p.returncode}:\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
        record = json.loads(out.read_text())  # Gradescope's format
        compiled = "did not compile" not in json.dumps(record)
        return record["score"], "graded" if compiled else "did not compile"

    def entries(path):
        text = path.read_text()
        found = []
        for d in kept.iterdir() if kept.is_dir() else []:
            f = d / "compiled_from"
            try:
                if f.is_file() and text in f.read_text(errors="replace"):
                    found.append(d)
            except OSError:
                pass
        return found

    def digest(entry):
        h = hashlib.sha256()
        for name in ("student.o", "student.o.instrumented"):
            h.update((entry / name).read_bytes())
        return h.hexdigest()

    solution = write("kept_solution.cu", (lesson / "solution.cu").read_text())
    exercise = write("kept_exercise.cu", (lesson / "exercise.cu").read_text())
    full, status = grade(solution)
    if status != "graded" or full <= 0:
        sys.exit(f"the solution did not grade: {status}, {full} points")
    low, _ = grade(exercise)
    if low >= full:
        sys.exit(f"the exercise scored {low}, the solution {full}: nothing tells them apart")

    # 1. One entry each; graded again, the solution's is used.
    e_sol, e_ex = entries(solution), entries(exercise)
    if len(e_sol) != 1 or len(e_ex) != 1:
        sys.exit(f"expected one kept entry per file, found {len(e_sol)} and {len(e_ex)} in {kept}")
    e_sol, e_ex = e_sol[0], e_ex[0]
    os.utime(e_sol, (946684800, 946684800))  # used last in 2000
    again, _ = grade(solution)
    if again != full:
        problems.append(f"graded again, the solution scored {again}, first {full}")
    if e_sol.stat().st_mtime < 1e9:
        problems.append("graded again, the solution's kept objects were not used (their time of use "
                        "did not move)")
    if len(entries(solution)) != 1:
        problems.append("graded again, the solution was kept a second time")

    # 2. What is linked is the kept objects.
    for name in ("student.o", "student.o.instrumented"):
        (e_sol / name).write_bytes((e_ex / name).read_bytes())
    swapped, _ = grade(solution)
    if swapped != low:
        problems.append(f"with the exercise's objects in its entry, the solution scored {swapped}, "
                        f"not the exercise's {low}: the kept objects were not what was linked")

    # 3. A key that collided: compiled_from is not the file's text.
    with open(e_sol / "compiled_from", "a") as f:
        f.write("\n// another file under the same key\n")
    collided, _ = grade(solution)
    if collided != full:
        problems.append(f"with another text under its key, the solution scored {collided}, not "
                        f"{full}: an entry was used for a file it was not compiled from")

    # 4. A program that overwrites its objects while it runs.
    spoiler = write("kept_spoiler.cu", (lesson / "solution.cu").read_text() + SPOIL)
    first, status = grade(spoiler)
    e_sp = entries(spoiler)
    if status != "graded" or len(e_sp) != 1:
        problems.append(f"the file that overwrites its objects: {status}, {len(e_sp)} kept entries")
    else:
        before = digest(e_sp[0])
        second, status = grade(spoiler)
        if (second, status) != (first, "graded"):
            problems.append(f"the file that overwrites its objects scored {first}, then {second} "
                            f"({status})")
        if digest(e_sp[0]) != before or (e_sp[0] / "student.o").read_bytes().startswith(b"spoilt"):
            problems.append("a program changed its kept objects")

    for d in entries(solution) + entries(exercise) + entries(spoiler):
        subprocess.run(["rm", "-rf", str(d)])
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f"kept objects: ok (solution {full}, exercise {low})")


if __name__ == "__main__":
    main()
