#!/usr/bin/env bash
# The 3D dam break on an obstacle side by side: DualSPHysics 5.0 CPU's own case
# (CaseDambreak_Def.xml, generated at spacing DP with force gauges on the obstacle) and
# models/dam_break_3d_obstacle.ron at the same spacing (at its default time step: half a spacing
# per step at the speed of a fall from the water's height), one after the other on the same
# cores and threads. Prints each run's wall time and the water's
# force on the obstacle (x): when it first exceeds 1 N, its largest 5 ms sample, and its impulse
# (trapezoids over the run), then our largest compression.
#
#   side_by_side_3d.sh CACHE DP THREADS TMAX OUT
#     CACHE: the peer built by `dualsphysics.sh build`; OUT: a folder of yours. Build vcsim first
#     (`cargo build --release`).
set -euo pipefail
cache=$1; dp=$2; threads=$3; tmax=$4; out=$5
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
mkdir -p "$out"
bash "$here/dualsphysics.sh" case3d "$cache" "$dp" >"$out/case3d.log"
bash "$here/dualsphysics.sh" run3d "$cache" "$threads" "$tmax" "$out/dsph"
sed -e "s/spacing: 0.02,/spacing: $dp,/" \
  -e "s/output: (every: 0.01, vtk: false)/output: (every: 0.005, vtk: false, plot: false)/" \
  "$root/models/dam_break_3d_obstacle.ron" >"$out/ours.ron"
rm -rf "$out/ours"
s=$(date +%s.%N)
"$root/target/release/vcsim" run "$out/ours.ron" --end "$tmax" --threads "$threads" --quiet --out "$out/ours" >/dev/null
e=$(date +%s.%N)
awk -v a="$s" -v b="$e" -v th="$threads" -v tm="$tmax" -v dp="$dp" \
  'BEGIN {printf "vcsim3d threads=%s tmax=%s wall_s=%.2f dp=%s\n", th, tm, b - a, dp}'
awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "obstacle.fluid_force.x") c = i; next}
  {print $1 "," $c}' "$out/ours/probes.csv" | sed '1i t_s,fx_N' >"$out/ours_force.csv"
for f in dsph/force.csv ours_force.csv; do
  awk -F, -v name="$f" 'NR > 1 {
      if (n > 0) imp += 0.5 * ($2 + fp) * ($1 - tp)
      if (arr == "" && $2 > 1) arr = $1
      if ($2 > peak) {peak = $2; tpeak = $1}
      tp = $1; fp = $2; n++ }
    END {printf "%s: force on the obstacle first above 1 N at %.3f s, largest %.2f N at %.3f s, impulse %.3f N s\n",
      name, arr, peak, tpeak, imp}' "$out/$f"
done
grep -E "compression|projection" "$out/ours/summary.txt"
