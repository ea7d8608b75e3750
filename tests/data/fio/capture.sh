#!/bin/sh
# Re-make every capture in this folder with the fio on PATH. See README.md.
# Usage: tests/data/fio/capture.sh [SCRATCH_DIR]   (default: a new mktemp -d under /tmp)
# fio runs inside SCRATCH_DIR on a 64 MiB regular file (fio-capture.dat); never on a block device.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
scratch=${1:-$(mktemp -d /tmp/ssdlab-fio-captures.XXXXXX)}
mkdir -p "$scratch"
cd "$scratch"

# run NAME FORMAT: fio FORMAT on NAME.fio; stdout -> NAME.json, stderr -> NAME.stderr (kept if not empty)
run() {
    name=$1 format=$2
    rc=0
    fio --output-format="$format" "$here/$name.fio" >"$here/$name.json" 2>"$here/$name.stderr" || rc=$?
    echo "$name: fio exit status $rc"
    [ -s "$here/$name.stderr" ] || rm -f "$here/$name.stderr"
}

run randread-4k-qd32 json+
run seqwrite-1m json+
run randrw-70-30 json+
run randread-4k-nj4-group json+
run null-ioengine json+
run psync-iodepth-warning json+
run write-error-devfull json+
run randread-4k-json json

# logs: fio writes them into the current directory, named after write_*_log
for dir in logs-randrw-nj2 logs-randread-nj2-combined; do
    name=${dir#logs-}
    rm -f "$here/$dir"/*.log
    mkdir -p "$scratch/$dir" && cd "$scratch/$dir"
    fio --output-format=json+ "$here/$dir/$name.fio" >"$here/$dir/$name.json"
    cp ./*.log "$here/$dir/"
    ls -1 ./*.log | sed "s|^\./|$dir: |"
    cd "$scratch"
done

rm -f "$scratch/fio-capture.dat" "$scratch"/logs-*/fio-capture.dat
fio --version
date -u
