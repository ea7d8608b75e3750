#!/bin/sh
# Writes what ssdlab prints for the runs of main-98b38bc.sqlite into DIR: `show` (text and
# --json), `export` in every format, `compare`, `report --format md`, `status`
# of the endurance run and `wear` between two imported samples. Made with the code of
# commit 98b38bc, these are the documents later code must still print for the same store.
#   PYTHON=/work/main/.venv/bin/python sh tests/data/store/outputs_main-98b38bc.sh STORE DIR
set -eu
STORE=$1
DIR=$2
SRC=$(cd "$(dirname "$0")/../../.." && pwd)
export PYTHONPATH="$SRC/src"
PY=${PYTHON:-python3}
DB=$(mktemp -d)/store.sqlite
cp "$STORE" "$DB"
ssdlab() { "$PY" -m ssdlab "$@" --db "$DB"; }
mkdir -p "$DIR"
ssdlab runs --json > "$DIR/runs.json"
for run in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do
    ssdlab show "$run" --json > "$DIR/show-$run.json"
    COLUMNS=100 ssdlab show "$run" > "$DIR/show-$run.txt"
done
for run in 1 3 4 5 8 9 11 14; do
    for format in json csv md cdm; do
        ssdlab export "$run" --format "$format" > "$DIR/export-$run.$format" 2>&1 || true
    done
done
ssdlab compare 1 2 --json > "$DIR/compare-1-2.json"
ssdlab compare 1 9 --json > "$DIR/compare-1-9.json"
ssdlab compare 4 6 --json > "$DIR/compare-4-6.json"
COLUMNS=100 ssdlab compare 1 2 9 > "$DIR/compare-1-2-9.txt"
for run in 1 4 8 11 14; do
    ssdlab report "$run" --format md > "$DIR/report-$run.md"
done
ssdlab status 14 --json > "$DIR/status-14.json"
ssdlab wear 104 109 --json > "$DIR/wear-104-109.json"
