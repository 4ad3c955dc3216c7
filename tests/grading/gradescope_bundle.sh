#!/bin/sh
# The Gradescope autograder zip, run as Gradescope runs it: unpacked into
# /autograder/source (a private mount namespace, bubblewrap), its setup.sh
# builds the course there (without the viewer, as an autograder's image
# is), then for each of 10 submissions run_autograder
# grades /autograder/submission into /autograder/results/results.json (each
# submission with folders of its own, two at a time). Each score must be the
# one the file is known to earn: TOTAL (what the lesson is graded out of) for
# the solution, 0 for the untouched exercise, and for the hostile files the
# points their header gives (exact: 12 for the correct ones, 0 for the rest).
# usage: gradescope_bundle.sh CUDALAB PROJECT OUTDIR TOTAL
set -eu
cudalab=$1 project=$2 out=$3 total=$4
rm -rf "$out"
mkdir -p "$out/autograder/source" "$out/submissions"
"$cudalab" gradescope vector_add -o "$out/autograder.zip" >/dev/null
python3 -m zipfile -e "$out/autograder.zip" "$out/autograder/source"
# As Gradescope does: run_autograder is copied to /autograder.
cp "$out/autograder/source/run_autograder" "$out/autograder/run_autograder"
# Gradescope's own layout, at /autograder, over this machine's files, as a
# container of its own: this machine's files read-only, a /tmp and process
# list of its own, no network. (Gradescope's container cannot run the
# sandbox: submissions run unconfined there, and a hostile one must not
# reach this machine's other processes or files, such as the tests running
# beside this one.)
layout() {
  set -- --tmpfs /
  for top in /*; do
    case "$top" in /proc|/dev|/sys|/tmp|/autograder) ;; *) set -- "$@" --ro-bind "$top" "$top" ;; esac
  done
  echo "$@" --tmpfs /tmp --proc /proc --dev /dev --unshare-pid --unshare-net --die-with-parent \
    --bind "$out/autograder" /autograder
}
# shellcheck disable=SC2046
bwrap $(layout) -- bash /autograder/source/setup.sh > "$out/setup.log" 2>&1 ||
  { tail -30 "$out/setup.log"; exit 1; }
# An autograder's image is built without the viewer (and CI's only build
# that grades without it is this one).
grep -qx 'CUDALAB_VISUALIZER:BOOL=OFF' "$out/autograder/source/course/build/CMakeCache.txt" ||
  { echo "the autograder's build was configured with the viewer"; exit 1; }
hostile="$project/tests/hostile"
lesson="$project/lessons/vector_add"
cp "$lesson/solution.cu" "$out/submissions/solution.cu"
cp "$lesson/exercise.cu" "$out/submissions/exercise.cu"
for f in correct_prints_a_lot correct_unusual_grid_stride fake_printed_totals forged_result_file \
         segfault_in_host exit_at_static_init output_flood hardcoded_public_outputs; do
  cp "$hostile/$f.cu" "$out/submissions/$f.cu"
done
# Each submission in a Gradescope container of its own: its own
# /autograder/submission and /autograder/results over the shared layout;
# two at a time.
autograde() {
  name=$1
  run="$out/runs/$name"
  mkdir -p "$run/submission" "$run/results"
  cp "$out/submissions/$name.cu" "$run/submission/exercise.cu"
  # shellcheck disable=SC2046
  CUDALAB_SEED=7 bwrap $(layout) --bind "$run/submission" /autograder/submission \
    --bind "$run/results" /autograder/results --chdir /autograder -- \
    bash /autograder/run_autograder > "$out/$name.log" 2>&1
}
mkdir -p "$out/autograder/submission" "$out/autograder/results"
pids=
for f in "$out"/submissions/*.cu; do
  name=$(basename "$f" .cu)
  autograde "$name" &
  pids="$pids $!"
  # At most two at once.
  set -- $pids
  if [ $# -ge 2 ]; then wait "$1"; pids=$(echo "$pids" | cut -d' ' -f3-); fi
done
wait
bad=0
for f in "$out"/submissions/*.cu; do
  name=$(basename "$f" .cu)
  got=$(python3 -c "import json; print(json.load(open('$out/runs/$name/results/results.json'))['score'])") ||
    { echo "$name: no results.json from run_autograder:"; tail -20 "$out/$name.log"; bad=1; continue; }
  case $name in
    solution) want=$total ;;
    exercise) want=0 ;;
    *) want=$(sed -n 's|^// expect-max-points: *||p' "$hostile/$name.cu") ;;
  esac
  same=$(python3 -c "print(float('$got') == float('$want'))")
  echo "$name: Gradescope $got, expected $want"
  [ "$same" = True ] || { bad=1; tail -20 "$out/$name.log"; }
done
[ $bad -eq 0 ] && echo "gradescope bundle: the expected scores"
