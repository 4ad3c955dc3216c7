#!/bin/sh
# The vector-add class graded on a throwaway single-node Slurm cluster (a job
# array and a gather job), then on this machine with the same seed: the two
# gradebooks must be the same. Exit 77 (skipped) where Slurm is absent.
# usage: slurm_class.sh CUDALAB PROJECT OUTDIR
set -u
cudalab=$1 project=$2 out=$3
rm -rf "$out" && mkdir -p "$out/class"
cluster="$out/cluster"
env_lines=$(bash "$project/tests/slurm/cluster.sh" start "$cluster")
rc=$?
if [ $rc -ne 0 ]; then echo "$env_lines"; exit $rc; fi
trap 'bash "$project/tests/slurm/cluster.sh" stop "$cluster" >/dev/null 2>&1' EXIT
eval "$(echo "$env_lines" | grep '^export ')"
lesson="$project/lessons/vector_add"
cp "$lesson/solution.cu" "$out/class/alice.cu"
cp "$lesson/exercise.cu" "$out/class/bob.cu"
cp "$lesson/wrong/no_bounds_check.diff" "$out/class/carol.diff"
cp "$lesson/wrong/no_grid_stride.diff" "$out/class/dave.diff"
"$cudalab" grade vector_add "$out/class" -o "$out/slurm" --seed 7 --slurm --slurm-wait \
  --slurm-tasks 2 || { cat "$out"/slurm/slurm/*.log; exit 1; }
"$cudalab" grade vector_add "$out/class" -o "$out/local" --seed 7 -j2 >/dev/null 2>&1
cat "$out/slurm/gradebook.csv"
if cmp "$out/slurm/gradebook.csv" "$out/local/gradebook.csv"; then
  echo "slurm gradebook: same"
else
  diff "$out/slurm/gradebook.csv" "$out/local/gradebook.csv"
  exit 1
fi
