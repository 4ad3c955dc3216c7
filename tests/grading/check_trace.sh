#!/bin/sh
# cudalab check --trace: the trace of the first failing visible test is kept
# for cudalab-viz (the sandbox's copy goes with the grading), and a file
# that passes says why there is none.
#   check_trace.sh CUDALAB PROJECT WORKDIR
set -eu
cudalab=$1 project=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$cudalab" check vector_add --file "$project/lessons/vector_add/wrong/no_bounds_check.diff" \
  --trace "$work/kept.trace" --no-rubrics >"$work/1.txt" 2>&1 || true
grep -q "trace of test .* written to $work/kept.trace: look at it with cudalab-viz" "$work/1.txt" ||
  fail "no trace said: $(cat "$work/1.txt")"
[ -s "$work/kept.trace" ] || fail "the trace was not kept"
"$cudalab" stats "$work/kept.trace" >"$work/stats.txt" 2>&1 || fail "the kept trace does not read: $(cat "$work/stats.txt")"
grep -q "vector_add" "$work/stats.txt" || fail "the kept trace has no vector_add launch: $(cat "$work/stats.txt")"

"$cudalab" check vector_add --solution --trace "$work/none.trace" --no-rubrics >"$work/2.txt" 2>&1 ||
  fail "the solution failed: $(cat "$work/2.txt")"
grep -q "no trace: no visible test or rubric failed" "$work/2.txt" || fail "no reason given: $(cat "$work/2.txt")"
[ ! -e "$work/none.trace" ] || fail "a trace was written for a file that passes"
echo "check trace: ok"
