#!/bin/sh
# The Gradescope autograder zip, run as Gradescope runs it: unpacked into
# /autograder/source (a private mount namespace, bubblewrap), its setup.sh
# builds the course there, then for each of 10 submissions run_autograder
# grades /autograder/submission into /autograder/results/results.json. Its
# scores must be those of `cudalab grade` with the same seed.
# usage: gradescope_bundle.sh CUDALAB PROJECT OUTDIR
set -eu
cudalab=$1 project=$2 out=$3
rm -rf "$out"
mkdir -p "$out/autograder/source" "$out/class"
"$cudalab" gradescope vector_add -o "$out/autograder.zip" >/dev/null
python3 -m zipfile -e "$out/autograder.zip" "$out/autograder/source"
# As Gradescope does: run_autograder is copied to /autograder.
cp "$out/autograder/source/run_autograder" "$out/autograder/run_autograder"
# Gradescope's own layout, at /autograder, over this machine's files.
layout() {
  set -- --tmpfs /
  for top in /*; do
    case "$top" in /proc|/dev|/sys|/autograder) ;; *) set -- "$@" --bind "$top" "$top" ;; esac
  done
  echo "$@" --proc /proc --dev /dev --bind "$out/autograder" /autograder
}
# shellcheck disable=SC2046
bwrap $(layout) -- bash /autograder/source/setup.sh > "$out/setup.log" 2>&1 ||
  { tail -30 "$out/setup.log"; exit 1; }
hostile="$project/tests/hostile"
lesson="$project/lessons/vector_add"
cp "$lesson/solution.cu" "$out/class/solution.cu"
cp "$lesson/exercise.cu" "$out/class/exercise.cu"
for f in correct_prints_a_lot correct_unusual_grid_stride fake_printed_totals forged_result_file \
         segfault_in_host exit_at_static_init output_flood hardcoded_public_outputs; do
  cp "$hostile/$f.cu" "$out/class/$f.cu"
done
"$cudalab" grade vector_add "$out/class" -o "$out/grades" --seed 7 -j2 >/dev/null 2>&1 || true
bad=0
for f in "$out"/class/*.cu; do
  name=$(basename "$f" .cu)
  rm -rf "$out/autograder/submission" "$out/autograder/results"
  mkdir -p "$out/autograder/submission"
  cp "$f" "$out/autograder/submission/exercise.cu"
  # shellcheck disable=SC2046
  CUDALAB_SEED=7 bwrap $(layout) --chdir /autograder -- bash /autograder/run_autograder \
    > "$out/$name.log" 2>&1
  got=$(python3 -c "import json; print(json.load(open('$out/autograder/results/results.json'))['score'])")
  want=$(python3 -c "import csv; print(next(r['total'] for r in csv.DictReader(open('$out/grades/gradebook.csv')) if r['student'] == '$name'))")
  same=$(python3 -c "print(float('$got') == float('$want'))")
  echo "$name: Gradescope $got, class $want"
  [ "$same" = True ] || bad=1
done
[ $bad -eq 0 ] && echo "gradescope bundle: same scores"
