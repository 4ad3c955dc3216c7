#!/bin/sh
# cudalab run, as a student uses it: the lesson's program with a file of
# theirs is built once, rebuilt when the file changes, run under the checks
# (their report at the file's line), and its trace drawn to a PNG.
#   run_command.sh CUDALAB PROJECT WORKDIR
set -eu
cudalab=$1 project=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
mine=$work/mine.cu
cp "$project/lessons/vector_add/solution.cu" "$mine"
fail() { echo "FAIL: $*"; exit 1; }

"$cudalab" run vector_add --file "$mine" -- 1000 >"$work/1.txt" 2>&1 || fail "the solution did not run: $(cat "$work/1.txt")"
grep -q "building" "$work/1.txt" || fail "the first run built nothing"
grep -q "all 1000 elements match" "$work/1.txt" || fail "wrong output: $(cat "$work/1.txt")"
"$cudalab" run vector_add --file "$mine" -- 1000 >"$work/2.txt" 2>&1
grep -q "unchanged since its last build" "$work/2.txt" || fail "an unchanged file was rebuilt"

# A bounds check removed: rebuilt, and memcheck names the line.
sed -i 's/i < n; i += stride/i < n + 64; i += stride/' "$mine"
line=$(grep -n "i < n + 64" "$mine" | cut -d: -f1)
[ -n "$line" ] || fail "the solution changed: the test's edit no longer applies"
status=0
"$cudalab" run vector_add --file "$mine" --check memcheck -- 1000 >"$work/3.txt" 2>&1 || status=$?
grep -q "building" "$work/3.txt" || fail "a changed file was not rebuilt"
grep -q "CUDALAB_CHECK=memcheck" "$work/3.txt" || fail "--check did not set the checks"
grep -q "mine.cu:" "$work/3.txt" || fail "memcheck did not name mine.cu: $(cat "$work/3.txt")"
grep -q "ERROR SUMMARY: [1-9]" "$work/3.txt" || fail "memcheck found nothing: $(cat "$work/3.txt")"

# Bad input: a clear error and a non-zero status.
if "$cudalab" run no_such_lesson >"$work/4.txt" 2>&1; then fail "an unknown lesson ran"; fi
grep -q "no lesson 'no_such_lesson'" "$work/4.txt" || fail "unclear error: $(cat "$work/4.txt")"

if command -v xvfb-run >/dev/null && [ -x "$(dirname "$cudalab")/cudalab-viz" ]; then
  "$cudalab" run vector_add --solution --picture "$work/run.png" -- 1000 >"$work/5.txt" 2>&1 ||
    fail "--picture failed: $(cat "$work/5.txt")"
  [ "$(wc -c <"$work/run.png")" -gt 10000 ] || fail "the picture is empty"
else
  echo "picture not checked: xvfb-run or cudalab-viz is missing"
fi
echo "run command: ok"
