#!/usr/bin/env bash
# DualSPHysics 5.0 CPU as a side-by-side peer for the 2D dam break (column 1 x 2 m, tank 4 m, dp 0.01,
# 20 000 fluid + 1 001 boundary particles). Builds the peer outside the project; never copy its code.
# Used by `cargo run --release --example perf_targets -- --peer CACHE`. Files are taken from the
# fetched repository one by one (ls-tree + cat-file): a fetched mirror may lack blobs the build
# does not need, which makes `git archive` fail.
#
#   dualsphysics.sh build GIT_DIR CACHE   GIT_DIR: the git dir of a fetched DualSPHysics repository
#                                         (the search tool's fetch prints it); CACHE: a folder of yours
#   dualsphysics.sh run CACHE THREADS TMAX OUT
#       prints one line "dsph threads=.. tmax=.. wall_s=.. steps=.. particles=.." and writes
#       OUT/front.csv (t_s, front_x_m: the SWL gauge at z = 0.03 m, every 5 ms)
#   dualsphysics.sh case3d CACHE DP       the peer's own 3D dam break on an obstacle
#       (examples/main/01_DamBreak/CaseDambreak_Def.xml: tank 1.6 x 0.67 x 0.4 m, column
#       0.4 x 0.67 x 0.3 m, obstacle 0.12 x 0.12 x 0.45 m at x = 0.9 m) at spacing DP (its own
#       0.0085 m: about 130 000 fluid particles), with force gauges on the obstacle (mk 1: top,
#       sides, back; mk 10: the face the water hits) every 5 ms; generated into CACHE/case3d
#   dualsphysics.sh run3d CACHE THREADS TMAX OUT
#       as run, for the 3D case; writes OUT/force.csv (t_s, fx_N: the sum of both gauges' x force)
#       beside models/dam_break_3d_obstacle.ron's FluidForce("obstacle")
set -euo pipefail
cmd=${1:-}; shift || true
# Runs the peer on the case CACHE/DIR/NAME with THREADS threads to TMAX into OUT; sets `wall` (s).
peer() {
  local dir=$1 name=$2 threads=$3 tmax=$4 out=$5 s e
  mkdir -p "$out"
  cp "$cache/$dir/$name.bi4" "$cache/$dir/$name.xml" "$out"/
  s=$(date +%s.%N)
  LD_LIBRARY_PATH="$cache/bin/linux" "$cache/bin/linux/DualSPHysics5.0CPU_linux64" -cpu \
    -ompthreads:"$threads" -tmax:"$tmax" "$out/$name" "$out" -dirdataout data -svres >"$out/run.log" 2>&1
  e=$(date +%s.%N)
  wall=$(awk -v a="$s" -v b="$e" 'BEGIN {printf "%.2f", b - a}')
}
# Prints "LABEL threads=.. tmax=.. wall_s=.. steps=.. particles=.." from the run in OUT.
summary() {
  tail -1 "$4/Run.csv" | awk -F';' -v l="$1" -v th="$2" -v tm="$3" -v w="$wall" \
    '{print l " threads=" th " tmax=" tm " wall_s=" w " steps=" $10 " particles=" $4}'
}
case "$cmd" in
build)
  git_dir=$1; cache=$2; mkdir -p "$cache"; cd "$cache"
  # The newest snapshot lacks the prebuilt GenCase; v5.0.231 (d87fc4a) has it.
  git --git-dir="$git_dir" ls-tree -r d87fc4a -- src/source src/lib/linux_gcc/libdsphchrono.so \
    src/lib/linux_gcc/libdsphmoordyn_64.a src/lib/linux_gcc/libjnumexlib_64.a src/lib/linux_gcc/libjvtklib_64.a \
    src/lib/linux_gcc/libjwavegen_64.a bin/linux/GenCase_linux64 bin/linux/libdsphchrono.so \
    bin/linux/DsphConfig.xml examples/main/01_DamBreak | while read -r mode type obj path; do
      mkdir -p "$(dirname "$path")"; git --git-dir="$git_dir" cat-file blob "$obj" > "$path"; done
  chmod +x bin/linux/GenCase_linux64
  cd src/source
  sed 's/^OBSPHSINGLE=JCellDivCpuSingle.o JPartsLoad4.o JSphCpuSingle.o$/& JDsDcell.o JDsExtraData.o JDsTimers.o/' \
    Makefile_cpu > Makefile_cpu_peer
  # The static libraries use the old C++ ABI; Chrono's shared library is not in the snapshot.
  make -f Makefile_cpu_peer USE_GCC5=YES COMPILE_CHRONO=NO COMPILE_CHRONO_OMP=NO -j"$(nproc)" >../../build.log 2>&1
  cd ../../examples/main/01_DamBreak
  sed 's/key="TimeMax" value="2.0"/key="TimeMax" value="1.0"/' CaseDambreakVal2D_Def.xml > CaseDb2d_Def.xml
  LD_LIBRARY_PATH=../../../bin/linux ../../../bin/linux/GenCase_linux64 CaseDb2d_Def "$cache/case/CaseDb2d" -save:all >../../../gencase.log 2>&1
  echo "built: $cache/bin/linux/DualSPHysics5.0CPU_linux64, case in $cache/case"
  ;;
run)
  cache=$1; threads=$2; tmax=$3; out=$4
  peer case CaseDb2d "$threads" "$tmax" "$out"
  awk -F';' 'NR>1 && $1+0>=0 {print $1","$2}' "$out/GaugesSWL_Swl_z003.csv" | sed '1i t_s,front_x_m' >"$out/front.csv"
  summary dsph "$threads" "$tmax" "$out"
  ;;
case3d)
  cache=$1; dp=$2; cd "$cache/examples/main/01_DamBreak"
  gauges='<special><gauges><default><output value="true" /><computedt value="0.005" /><outputdt value="0.005" /></default>'
  gauges+='<force name="Face"><target mkbound="10" /></force><force name="Rest"><target mkbound="1" /></force></gauges></special>'
  sed -e "s/dp=\"0.0085\"/dp=\"$dp\"/" -e "s|<execution>|<execution>$gauges|" CaseDambreak_Def.xml > CaseDb3d_Def.xml
  LD_LIBRARY_PATH=../../../bin/linux ../../../bin/linux/GenCase_linux64 CaseDb3d_Def "$cache/case3d/CaseDb3d" -save:all >../../../gencase3d.log 2>&1
  grep -E "Fluid particles|Total particles|np=" ../../../gencase3d.log | head -3 || true
  echo "case: $cache/case3d (dp $dp m)"
  ;;
run3d)
  cache=$1; threads=$2; tmax=$3; out=$4
  peer case3d CaseDb3d "$threads" "$tmax" "$out"
  awk -F';' 'FNR==1 {for (i = 1; i <= NF; i++) if ($i ~ /^forcex/) c = i; next}
    $1+0 >= 0 {f[$1] += $c} END {for (t in f) print t "," f[t]}' \
    "$out/GaugesForce_Face.csv" "$out/GaugesForce_Rest.csv" | sort -g | sed '1i t_s,fx_N' >"$out/force.csv"
  summary dsph3d "$threads" "$tmax" "$out"
  ;;
*) sed -n '2,18p' "$0"; exit 2 ;;
esac
