#!/bin/sh
# Makes main-98b38bc.sqlite: a store written by ssdlab at commit 98b38bc, kept so that stores
# written before issue 18's changes keep opening, showing, comparing and resuming after them.
# Run from a checkout of that commit (git worktree add /tmp/main-98b38bc 98b38bc):
#   PYTHON=/work/main/.venv/bin/python sh tests/data/store/make_main-98b38bc.sh OUT.sqlite
# It needs fio, writes only below /tmp/ssdlab-old-store-98b38bc and a temporary directory.
set -eu
OUT=$1
SRC=$(cd "$(dirname "$0")/../../.." && pwd)
export PYTHONPATH="$SRC/src"
PY=${PYTHON:-python3}
ssdlab() { "$PY" -m ssdlab "$@" --db "$OUT"; }
WORK=$(mktemp -d)
# the one path the interrupted cache run (8) keeps its test file at; the tests recreate it
KEPT=/tmp/ssdlab-old-store-98b38bc
rm -rf "$KEPT" && mkdir -p "$KEPT"
QUICK="--size 16MiB --measure 1 --count 1 --interval 0"

# a SIGINT once the run has stored `steps` step results: the run is interrupted mid-way
interrupt_after() {
    steps=$1; shift
    "$PY" -m ssdlab "$@" --db "$OUT" >/dev/null 2>&1 &
    pid=$!
    run=$(sqlite3 "$OUT" "SELECT COALESCE(MAX(id), 0) + 1 FROM runs")
    until [ "$(sqlite3 "$OUT" "SELECT COUNT(*) FROM step_results WHERE run_id = $run" 2>/dev/null || echo 0)" -ge "$steps" ]; do
        sleep 0.05
    done
    kill -INT "$pid"
    wait "$pid" || true
}

ssdlab quick "$WORK" $QUICK                       # 1: complete quick, all modes
ssdlab quick "$WORK" $QUICK --mode read           # 2: complete quick, read only
interrupt_after 3 quick "$WORK" --size 16MiB --measure 2 --count 1 --interval 0   # 3: interrupted quick
ssdlab run fill "$WORK" --size 16MiB --levels 0,50 --runtime 1                     # 4: complete fill
ssdlab run align "$WORK" --size 16MiB --block-sizes 512,4KiB --runtime 1           # 5: complete align
ssdlab run fill "$WORK" --size 16MiB --levels 0,50 --runtime 1                     # 6: second fill
# 7: interrupted in its idle step, test file removed (a resume must refuse)
interrupt_after 1 run cache "$WORK" --size 32MiB --recovery-idle 60 --recovery-size 16MiB
# 8: interrupted in its idle step, test file kept at a fixed path (a resume can continue)
interrupt_after 1 run cache "$KEPT/cache-run.tmp" --size 32MiB --recovery-idle 2 \
    --recovery-size 16MiB --keep
ssdlab import "$SRC/tests/corpus/bench/cdm8.0.0-uwp_2020-12-13_ct240bx200.txt"   # 9: CDM 8 text
ssdlab import "$SRC/tests/corpus/bench/kdiskmark3.2.0_fio-3.39_target.txt"       # 10: KDiskMark
ssdlab sim --capacity 64MiB --write 256MiB --seed 1                                # 11: sim
ssdlab health "$SRC/tests/data/smart/ata-crucial-mx500-devstat-wrap.json"          # 12: health file
ssdlab health --import "$SRC/tests/data/smart-text/cron-mx500-date-A.log"          # 13: health log
ssdlab endure "$WORK/e.dat" --size 8MiB --iodepth 4 --log-interval 0.1 --health-every 0.1 \
    --iteration-bytes 4MiB --until-written 8MB \
    --health-replay "$SRC/tests/data/smart-text/cron-mx500-date-A.log"             # 14: endure
rm -rf "$WORK"
sqlite3 "$OUT" "PRAGMA wal_checkpoint(TRUNCATE); VACUUM;"
