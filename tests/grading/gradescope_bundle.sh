#!/bin/sh
# The Gradescope autograder zip, run as Gradescope runs it: unpacked into
# /autograder/source (a private mount namespace, bubblewrap), its setup.sh
# builds the course there, then for each of 10 submissions run_autograder
# grades /autograder/submission into /autograder/results/results.json (each
# submission with folders of its own, two at a time). Its scores must be
# those of `cudalab grade` with the same seed.
# usage: gradescope_bundle.sh CUDALAB PROJECT OUTDIR
set -eu
cudalab=$1 project=$2 out=$3
rm -rf "$out"
mkdir -p "$out/autograder/source" "$out/class"
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
# The image's build shares this machine's compiler cache (ccache, when the
# build here uses it): what the two builds compile alike is compiled once.
cache=
if command -v ccache >/dev/null && dir=$(ccache --get-config cache_dir) && [ -w "$dir" ]; then
  cache="--bind $dir $dir"
fi
# shellcheck disable=SC2046,SC2086
bwrap $(layout) $cache -- bash /autograder/source/setup.sh > "$out/setup.log" 2>&1 ||
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
# Each submission in a Gradescope container of its own: its own
# /autograder/submission and /autograder/results over the shared layout;
# two at a time, as the class command grades them (-j2).
autograde() {
  name=$1
  run="$out/runs/$name"
  mkdir -p "$run/submission" "$run/results"
  cp "$out/class/$name.cu" "$run/submission/exercise.cu"
  # shellcheck disable=SC2046
  CUDALAB_SEED=7 bwrap $(layout) --bind "$run/submission" /autograder/submission \
    --bind "$run/results" /autograder/results --chdir /autograder -- \
    bash /autograder/run_autograder > "$out/$name.log" 2>&1
}
mkdir -p "$out/autograder/submission" "$out/autograder/results"
pids=
for f in "$out"/class/*.cu; do
  name=$(basename "$f" .cu)
  autograde "$name" &
  pids="$pids $!"
  # At most two at once.
  set -- $pids
  if [ $# -ge 2 ]; then wait "$1"; pids=$(echo "$pids" | cut -d' ' -f3-); fi
done
wait
bad=0
for f in "$out"/class/*.cu; do
  name=$(basename "$f" .cu)
  got=$(python3 -c "import json; print(json.load(open('$out/runs/$name/results/results.json'))['score'])") ||
    { echo "$name: no results.json from run_autograder:"; tail -20 "$out/$name.log"; bad=1; continue; }
  want=$(python3 -c "import csv; print(next(r['total'] for r in csv.DictReader(open('$out/grades/gradebook.csv')) if r['student'] == '$name'))")
  same=$(python3 -c "print(float('$got') == float('$want'))")
  echo "$name: Gradescope $got, class $want"
  [ "$same" = True ] || bad=1
done
[ $bad -eq 0 ] && echo "gradescope bundle: same scores"
