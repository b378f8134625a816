#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for trying scripts/slurm-match.sh and for
# its test (tools/tests/slurm.rs). Debian's slurm-wlm and munge; run as root.
#
# usage: scripts/slurm-local.sh install | start | stop | status
#   install   apt-get install slurm-wlm munge (when missing; exit 1 when it cannot)
#   start     write the configuration, start munged, slurmctld and slurmd, wait until the
#             node takes jobs, and print the SLURM_CONF line the client commands need
#   stop      stop the three daemons started by `start` (by their pid files)
#   status    sinfo of the local cluster
# Everything (configuration, munge key and socket, state, logs, pid files) lives in
# $WUZI_SLURM_DIR (default /tmp/wuzi-slurm): nothing under /etc is changed, and the ports
# ($WUZI_SLURM_PORT and the one after, default 16817) are not Slurm's usual ones, so a
# real Slurm installation on the machine is left alone.
set -euo pipefail

dir="${WUZI_SLURM_DIR:-/tmp/wuzi-slurm}"
port="${WUZI_SLURM_PORT:-16817}"
conf="$dir/slurm.conf"
node="$(hostname -s)"

say() { echo "slurm-local: $*"; }
fail() { echo "slurm-local: $*" >&2; exit 1; }

missing_tools() {
    local tool missing=()
    for tool in munged mungekey slurmctld slurmd sbatch sinfo squeue scontrol; do
        command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || missing+=("$tool")
    done
    echo "${missing[*]}"
}

install() {
    if [ -z "$(missing_tools)" ]; then
        say "slurm-wlm and munge are installed"
        return 0
    fi
    [ "$(id -u)" = 0 ] || fail "installing needs root (apt-get install slurm-wlm munge)"
    command -v apt-get >/dev/null || fail "no apt-get here: install Slurm and munge by hand"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null 2>&1 || true
    apt-get install -y -q slurm-wlm munge >/dev/null 2>&1 || fail "apt-get install slurm-wlm munge failed"
    [ -z "$(missing_tools)" ] || fail "still missing after apt-get: $(missing_tools)"
    say "installed slurm-wlm and munge"
}

write_config() {
    local cpus memory user
    cpus="$(nproc)"
    memory="$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)"
    user="$(id -un)"
    mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
    chmod 700 "$dir/munge"
    cat >"$conf" <<EOF
# Written by scripts/slurm-local.sh: a one-node cluster on $node.
ClusterName=wuzi-local
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

# Sends TERM to the process in a pid file and waits up to 10 s for it to go.
stop_pid() {
    local file="$1" pid
    [ -f "$file" ] || return 0
    pid="$(cat "$file" 2>/dev/null || true)"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.2
        done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$file"
}

stop() {
    stop_pid "$dir/slurmd.pid"
    stop_pid "$dir/slurmctld.pid"
    stop_pid "$dir/munged.pid"
    say "stopped (state in $dir)"
}

start() {
    local missing
    missing="$(missing_tools)"
    [ -z "$missing" ] || fail "not installed: $missing (scripts/slurm-local.sh install)"
    [ "$(id -u)" = 0 ] || say "not root: jobs can only run as $(id -un)"
    stop >/dev/null
    write_config
    [ -f "$dir/munge/munge.key" ] || mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null 2>&1 ||
        fail "cannot create the munge key"
    chmod 600 "$dir/munge/munge.key"
    munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" \
        --seed-file="$dir/munge/munged.seed" ||
        fail "munged did not start (see $dir/log/munged.log)"
    slurmctld -f "$conf" || fail "slurmctld did not start (see $dir/log/slurmctld.log)"
    slurmd -f "$conf" -N "$node" || fail "slurmd did not start (see $dir/log/slurmd.log)"
    export SLURM_CONF="$conf"
    for _ in $(seq 150); do
        case "$(sinfo -h -N -n "$node" -o %t 2>/dev/null || true)" in
            idle*|mix*|alloc*)
                say "cluster up: node $node, $(nproc) CPUs, partition local"
                echo "export SLURM_CONF=$conf"
                return 0
                ;;
        esac
        sleep 0.2
    done
    stop >/dev/null
    fail "the node did not come up within 30 s (logs in $dir/log)"
}

case "${1:-}" in
    install) install ;;
    start) start ;;
    stop) stop ;;
    status) SLURM_CONF="$conf" sinfo ;;
    -h|--help|help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' ;;
    *) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
