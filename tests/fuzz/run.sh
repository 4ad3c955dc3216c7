#!/usr/bin/env bash
# Builds the fuzz targets (the `fuzz` preset) and runs each for about SECONDS
# of a core (default 60), starting from seeds made here: a trace recorded from a test
# program (when the default build has it), the course's .cu files, and each
# known-wrong diff with its solution. Their corpora grow in
# build-fuzz/corpus/; a crash is kept in build-fuzz/crashes/ and fails the
# run. Each target's last status line says how many inputs it ran.
#   usage: tests/fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds < 1)); then
  echo "usage: tests/fuzz/run.sh [SECONDS] [TARGET...]  (SECONDS: a whole number, at least 1)" >&2
  exit 2
fi
targets=("$@")
((${#targets[@]})) || targets=(trace_reader_fuzz rewriter_fuzz diff_fuzz)

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target "${targets[@]}"

out=build-fuzz
mkdir -p "$out/crashes"
for t in trace_reader_fuzz rewriter_fuzz diff_fuzz; do mkdir -p "$out/corpus/$t"; done
# Seeds.
if [[ -x build/bin/traced_add ]]; then
  CUDALAB_TRACE="$out/corpus/trace_reader_fuzz/seed-traced-add.trace" build/bin/traced_add >/dev/null
fi
for f in lessons/*/*.cu tests/programs/*.cu; do
  [[ -f $f ]] && cp "$f" "$out/corpus/rewriter_fuzz/seed-$(echo "$f" | tr / -)"
done
for d in lessons/*/wrong/*.diff; do
  [[ -f $d ]] || continue
  solution="$(dirname "$(dirname "$d")")/solution.cu"
  [[ -f $solution ]] || continue
  { cat "$solution"; printf '\0'; cat "$d"; } >"$out/corpus/diff_fuzz/seed-$(basename "$d")"
done

# All targets at once, each a process on one core: with more targets than
# cores each runs longer, SECONDS x targets / cores, so that each still gets
# about SECONDS of a core (three on two cores: 45 s in all, where two and
# then one took 60 s with a core idle for the last 30).
cores=$(nproc 2>/dev/null || echo 1)
wall=$(( (seconds * ${#targets[@]} + cores - 1) / cores ))
((wall < seconds)) && wall=$seconds
fuzz_one() {
  local t=$1
  if ! "$out/bin/$t" "$out/corpus/$t" -max_total_time="$wall" -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="$out/crashes/$t-" -print_final_stats=1 >"$out/$t.log" 2>&1; then
    return 1
  fi
}
failed=0
pids=()
for t in "${targets[@]}"; do
  echo "== $t for $wall s (about $seconds s of a core)"
  fuzz_one "$t" &
  pids+=($!)
done
for k in "${!targets[@]}"; do
  t=${targets[k]}
  if ! wait "${pids[k]}"; then
    echo "$t FAILED: see $out/$t.log and $out/crashes/" >&2
    grep -m5 -E "ERROR|runtime error|SUMMARY" "$out/$t.log" >&2 || true
    failed=1
  fi
  echo "-- $t:"
  grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" "$out/$t.log" | tail -2 || true
done
exit $failed
