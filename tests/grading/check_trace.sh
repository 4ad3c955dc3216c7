#!/bin/sh
# cudalab check --trace: the trace of the first failing visible test is kept
# for cudalab-viz (the sandbox's copy goes with the grading) with the graded
# tests beside it (TRACE.tests.json: the verdicts, the traced test's wrong
# elements against the values expected), and a file that passes says why
# there is none.
#   check_trace.sh CUDALAB PROJECT WORKDIR
set -eu
cudalab=$1 project=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$cudalab" check vector_add --file "$project/lessons/vector_add/wrong/no_bounds_check.diff" \
  --trace "$work/kept.trace" --no-rubrics >"$work/1.txt" 2>&1 || true
grep -q "trace of test .* written to $work/kept.trace, its graded tests beside it: look at them with cudalab-viz" "$work/1.txt" ||
  fail "no trace said: $(cat "$work/1.txt")"
[ -s "$work/kept.trace" ] || fail "the trace was not kept"
"$cudalab" stats "$work/kept.trace" >"$work/stats.txt" 2>&1 || fail "the kept trace does not read: $(cat "$work/stats.txt")"
grep -q "vector_add" "$work/stats.txt" || fail "the kept trace has no vector_add launch: $(cat "$work/stats.txt")"
[ -s "$work/kept.trace.tests.json" ] || fail "the graded tests were not kept beside the trace"

# Wrong values: a grid too small for the array leaves most of c unwritten.
# The tests file lists every test and the traced test's wrong elements,
# all of them as runs, the first with their values.
env -u DISPLAY -u WAYLAND_DISPLAY "$cudalab" check vector_add --file "$project/lessons/vector_add/wrong/no_grid_stride.diff" \
  --trace "$work/grid.trace" --no-rubrics --viz >"$work/3.txt" 2>&1 && fail "a wrong file passed"
[ -s "$work/grid.trace" ] || fail "no trace for the wrong values: $(cat "$work/3.txt")"
python3 - "$work/grid.trace.tests.json" "$project/lessons/vector_add/lesson.json" <<'PY' || fail "the graded tests beside the trace are not right"
import json, sys
r = json.load(open(sys.argv[1]))
lesson = json.load(open(sys.argv[2]))
assert r["format"] == "cudalab graded tests 1", r.get("format")
assert r["file"] == "no_grid_stride.diff", r["file"]
names = [t["name"] for t in r["tests"]]
assert r["traced_test"] in names, (r["traced_test"], names)
traced = next(t for t in r["tests"] if t["name"] == r["traced_test"])
assert traced["status"] == "failed" and traced["visibility"] == "visible", traced
hidden = [t for t in r["tests"] if t["visibility"] == "hidden"]
assert hidden and all(t["output"] in ("", "Hidden test: " + t["verdict"] + ".\n") for t in hidden), \
    "a hidden test says more than its verdict"
wrong = [c for c in r["compared"] if c["wrong"] > 0]
assert wrong, r["compared"]
c = wrong[0]
assert c["name"] == "c" and c["allocation"] > 0, c
assert sum(n for _, n in c["runs"]) == c["wrong"], "the runs do not cover every wrong element"
assert 0 < len(c["elements"]) <= 1024, len(c["elements"])
first, got, want = c["elements"][0]
assert first == c["runs"][0][0] and got == "nan" and isinstance(want, str), c["elements"][0]
# The graded file's source, as the trace names it (its sandbox is gone).
assert any(k.endswith("/no_grid_stride.cu") and "__global__" in v for k, v in r["sources"].items()), \
    list(r["sources"])
PY
# Without a display, --viz says so and how to look at it elsewhere.
grep -q "no display here for cudalab-viz's window: open $work/grid.trace with cudalab-viz" "$work/3.txt" ||
  fail "--viz without a display said: $(cat "$work/3.txt")"

"$cudalab" check vector_add --solution --trace "$work/none.trace" --no-rubrics >"$work/2.txt" 2>&1 ||
  fail "the solution failed: $(cat "$work/2.txt")"
grep -q "no trace: no visible test or rubric failed" "$work/2.txt" || fail "no reason given: $(cat "$work/2.txt")"
[ ! -e "$work/none.trace" ] || fail "a trace was written for a file that passes"
echo "check trace: ok"
