#!/usr/bin/env bash
# Checks a restructuring: runs every shipped model, and seven variants for what no shipped model
# uses (ISPH on the buoyancy box, the sloshing tank and the dam break; WCSPH on the sloshing tank
# and, with ETI, on the buoyancy box; the sequential and simultaneous resolvers on Newton's
# cradle; KCSPH rows are shipped in hydrostatic_2d_kcsph.ron), over short end times on 2 threads,
# and hashes what they write. Run it with the build before and the build after a change that
# must not move a result, and compare the two folders' hashes.txt and summaries.txt (the
# summaries without their wall times). Then, with `icount`,
# the instruction counts (callgrind, one thread) of four models.
#
#   same_bytes.sh hashes BIN OUT    writes OUT/hashes.txt (SHA-256 of every CSV and VTK file),
#                                   OUT/summaries.txt and OUT/rc.txt (each run's exit code)
#   same_bytes.sh icount BIN OUT    prints "model instructions" for four models (valgrind)
#
# Example (the issue-51 check): `git worktree add /tmp/base 59d19bd`, build both, then
#   benches/same_bytes.sh hashes /tmp/base/target/release/vcsim /tmp/hash_base
#   benches/same_bytes.sh hashes target/release/vcsim /tmp/hash_new
#   cmp /tmp/hash_base/hashes.txt /tmp/hash_new/hashes.txt && cmp /tmp/hash_{base,new}/summaries.txt
set -euo pipefail
cmd=${1:-}; bin=$(realpath "${2:?the vcsim binary}"); out=${3:?an output folder}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"; out=$(realpath "$out")
variants="$out/variants"; mkdir -p "$variants"
m="$root/models"
for f in buoyancy_2d_apgd sloshing_2d_apgd dam_break_2d_apgd; do
  sed 's/^    fluid: (/    fluid: (\n        method: Isph(),/' "$m/$f.ron" > "$variants/${f}_isph.ron"
done
sed 's/^    fluid: (/    fluid: (\n        method: Wcsph(),/' "$m/sloshing_2d_apgd.ron" > "$variants/sloshing_wcsph.ron"
sed 's/^    fluid: (/    fluid: (\n        method: Wcsph(),/; s/^    solver: \(.*\)$/    solver: \1\n    contact: (resolver: Eti()),/' \
  "$m/buoyancy_2d_apgd.ron" > "$variants/buoyancy_wcsph_eti.ron"
sed 's/resolver: Eti(divider: 30)/resolver: SequentialImpulse()/' "$m/newton_cradle_eti.ron" > "$variants/cradle_sqm.ron"
sed 's/resolver: Eti(divider: 30)/resolver: SimultaneousImpulse()/' "$m/newton_cradle_eti.ron" > "$variants/cradle_smm.ron"

case "$cmd" in
hashes)
  runs="$out/runs"; rm -rf "$runs"; mkdir -p "$runs"; : > "$out/rc.txt"
  for f in "$m"/*.ron "$variants"/*.ron; do
    n=$(basename "$f" .ron); end=0.2
    case $n in *20k*) end=0.04;; dam_break_3d*) end=0.002;; pile_3d*|repose*) end=0.1;; poiseuille*) end=1;; box_impact*) end=0.01;; esac
    rc=0; "$bin" run "$f" --end $end --threads 2 --quiet --out "$runs/$n" > "$runs/$n.log" 2>&1 || rc=$?
    echo "$n rc=$rc" >> "$out/rc.txt"
  done
  (cd "$runs" && find . -name '*.csv' -o -name '*.vtu' -o -name '*.vtp' -o -name '*.pvd' | sort | xargs sha256sum) > "$out/hashes.txt"
  (cd "$runs" && for s in */summary.txt; do echo "== $s"; grep -v "wall\|µs\| s  \|steps/s" "$s"; done) > "$out/summaries.txt"
  wc -l "$out/hashes.txt"
  ;;
icount)
  command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
  for spec in "hydrostatic_2d_pgs $m/hydrostatic_2d_pgs.ron 0.01" "dam_break_2d_apgd $m/dam_break_2d_apgd.ron 0.01" \
              "cube_stack_eti $m/cube_stack_eti.ron 0.02" "buoyancy_isph $variants/buoyancy_2d_apgd_isph.ron 0.004"; do
    set -- $spec
    rm -rf "$out/icount-$1"
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" run "$2" --end "$3" --threads 1 --quiet \
      --out "$out/icount-$1" > "$out/icount-$1.log" 2>&1
    echo "$1 $(grep -o 'Collected : [0-9]*' "$out/icount-$1.log" | awk '{print $3}')"
  done
  ;;
*) echo "usage: same_bytes.sh hashes|icount BIN OUT" >&2; exit 2;;
esac
