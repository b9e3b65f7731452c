#!/usr/bin/env bash
# Writes the tables the book includes (book/src/generated/NAME.md) from the studies that
# measure them: `vcsim study models/studies/NAME.ron`, then the study's `table.md` (its report's
# table and the figures' notes) with a first line naming the command, the date and the machine.
#
#   book/generate.sh            # every table; run on a quiet machine: the tables hold wall times.
#                               # Most take seconds to minutes on 2 cores; elastic_plate 13 min,
#                               # floating_cylinder 20 min,
#                               # repose 4 min, sloshing_walls_small 20 min, sloshing_walls_large
#                               # 17 min, sloshing_large_refined 22 min
#   book/generate.sh NAME...    # only these
#
# NAME is a study in models/studies/, or `bench_step` (`cargo bench --bench step`, divan's
# table) or `perf_targets` (`cargo run --release --example perf_targets`, with
# `--peer $VCSIM_PEER_CACHE` when that is set: DualSPHysics built by
# benches/peer/dualsphysics.sh; about 15 min).
#
# Run from the repository root. Case folders go to $VCSIM_BOOK_RUNS (default
# /tmp/vcsim-book-runs), outside the repository; a second run resumes them (delete the folder
# to measure again). tests/book_tables.rs reruns the fast deterministic studies and compares.
set -euo pipefail
all=(main_job box_into_water floating_cylinder beam_elements beam_period convergence_circular_patch convergence_poiseuille elastic_plate
  repose sloshing_walls_small sloshing_walls_large sloshing_large_refined
  perf_dam_break_20k cost_accuracy sloshing_methods depth_iterations dam_break_dt
  solver_residual_tank solver_residual_pile bench_step perf_targets)
names=("$@")
[ ${#names[@]} -eq 0 ] && names=("${all[@]}")
runs=${VCSIM_BOOK_RUNS:-/tmp/vcsim-book-runs}
cargo build --release --quiet
mkdir -p "$runs"
machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
header() { echo "<!-- book/generate.sh $1: $2, $(date -u +%Y-%m-%d), $machine -->"; }
for n in "${names[@]}"; do
  case "$n" in
  bench_step)
    cargo bench --bench step 2>/dev/null | sed 's/[[:space:]]*$//' > "$runs/bench_step.txt"
    { echo "cargo bench --bench step ($(date -u +%Y-%m-%d), $machine)"; echo; cat "$runs/bench_step.txt"; } \
      > book/src/generated/bench_step.txt
    echo "wrote book/src/generated/bench_step.txt"; continue ;;
  perf_targets)
    peer=(); [ -n "${VCSIM_PEER_CACHE:-}" ] && peer=(--peer "$VCSIM_PEER_CACHE")
    cargo run --release --quiet --example perf_targets -- --soak "${peer[@]}" > "$runs/perf_targets.txt"
    { echo "cargo run --release --example perf_targets -- --soak ${peer[*]:-(no peer)} ($(date -u +%Y-%m-%d), $machine)"
      echo; cat "$runs/perf_targets.txt"; } > book/src/generated/perf_targets.txt
    echo "wrote book/src/generated/perf_targets.txt"; continue ;;
  esac
  [ -f "models/studies/$n.ron" ] || { echo "no study models/studies/$n.ron" >&2; exit 2; }
  # Studies that compare wall times of fluid runs give each case both cores.
  jobs=()
  case "$n" in perf_dam_break_20k|sloshing_methods|sloshing_walls_*|sloshing_large_refined) jobs=(--jobs 1) ;; esac
  target/release/vcsim study "models/studies/$n.ron" --out "$runs/$n" "${jobs[@]}"
  {
    header "$n" "vcsim study models/studies/$n.ron${jobs[*]:+ ${jobs[*]}}"
    echo
    cat "$runs/$n/table.md"
  } > "book/src/generated/$n.md"
  echo "wrote book/src/generated/$n.md"
done
