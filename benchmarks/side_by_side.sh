#!/bin/bash
# Run one benchmark script alternately on two source trees, round by round, so that both
# sides see the same machine load (a shared machine makes single figures move by 20-30 %).
#
#   benchmarks/side_by_side.sh <old tree> <new tree> <script> <rounds> [script args...]
#
# e.g. with `git worktree add --detach ../before a59b457`:
#   benchmarks/side_by_side.sh ../before . benchmarks/bench_engine.py 5
# Each tree runs its own copy of the script with PYTHONPATH pointing at it; the interpreter
# is this checkout's .venv.  Prints each run's output under a "== old|new round N" line.
set -u
old=$(cd "$1" && pwd); new=$(cd "$2" && pwd); script=$3; rounds=$4; shift 4
python=$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python
for round in $(seq 1 "$rounds"); do
    for side in old new; do
        tree=$old; [[ $side == new ]] && tree=$new
        echo "== $side round $round (load $(cut -d' ' -f1 /proc/loadavg))"
        (cd "$tree" && PYTHONPATH=$tree "$python" "$script" "$@")
    done
done
