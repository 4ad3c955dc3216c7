#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run through wait_for look unreachable
# A throwaway single-node Slurm cluster for tests.
#
#   cluster.sh start DIR   start munged, slurmctld and slurmd with everything
#                          (config, munge key and socket, state, spool, pid
#                          files, logs) under DIR; wait for the node to be idle;
#                          print KEY=value lines on stdout (the first one is
#                          `export SLURM_CONF=DIR/slurm.conf`, the others
#                          SLURM_CONF=... and CLUSTER_*=..., so the output can
#                          be eval'ed; a copy goes to DIR/cluster.env) and
#                          exit 0.  Exit 77 with `SKIP: why` on stdout
#                          when Slurm or MUNGE is not installed or we are not
#                          root; exit 1 with the daemons' log tails on stderr
#                          when the cluster does not come up (whatever did start is
#                          stopped again).
#   cluster.sh stop DIR    cancel the cluster's jobs, stop the daemons named by
#                          the pid files in DIR, and nothing else.
#
# The system's own configuration (/etc/slurm, /etc/munge, systemd units) is
# neither read nor changed.  Clients only need SLURM_CONF: the munge socket
# reaches them through AuthInfo=socket=... in slurm.conf.  (Run the clients
# without another cluster's SLURM_JOB_ID, SBATCH_* and the like in their
# environment, as when the tests themselves run inside a Slurm job.)
set -u

PROG=${0##*/}
log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { log "$*"; exit 1; }
usage() { echo "usage: $PROG start|stop DIR" >&2; exit 2; }

[ $# -eq 2 ] || usage
CMD=$1
DIR=$2
case $CMD in start|stop) ;; *) usage ;; esac
# The paths end up unquoted in slurm.conf and in the KEY=value output.
case $DIR in
    ''|*[!A-Za-z0-9._/+@=:,-]*) die "DIR must be made of [A-Za-z0-9._/+@=:,-]: '$DIR'" ;;
esac

export PATH="$PATH:/usr/sbin:/sbin:/usr/local/sbin"

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
read_pid() { [ -s "$1" ] && tr -dc '0-9' <"$1"; }

# Processes that hold one of this cluster's slurmd logs open: slurmd itself
# and any slurmstepd it forked (they reopen the slurmd log file).
cluster_procs() {
    find /proc/[0-9]*/fd -maxdepth 1 -lname "$1/log/slurmd.log" 2>/dev/null |
        awk -F/ '{print $3}' | sort -u
}

descendants() {
    local c
    for c in $(pgrep -P "$1" 2>/dev/null); do echo "$c"; descendants "$c"; done
}

# stop_pids SECONDS PID...: send TERM, wait up to SECONDS for all of them to
# go, then KILL those left.
stop_pids() {
    local secs=$1 pid left i
    shift
    for pid in "$@"; do pid_alive "$pid" && kill -TERM "$pid" 2>/dev/null; done
    for ((i = 0; i < secs * 10 + 20; i++)); do
        left=
        for pid in "$@"; do pid_alive "$pid" && left="$left $pid"; done
        [ -z "$left" ] && return 0
        if [ $i -eq $((secs * 10)) ]; then
            for pid in $left; do kill -KILL "$pid" 2>/dev/null; done
        fi
        sleep 0.1
    done
}

do_stop() {
    local d=$1 pid p i
    [ -d "$d" ] || return 0
    d=$(cd "$d" && pwd -P)
    local run=$d
    [ -s "$d/rundir" ] && run=$(cat "$d/rundir")
    # Cancel whatever still runs, while the controller is there to do it.
    pid=$(read_pid "$d/run/slurmctld.pid")
    if pid_alive "$pid" && command -v scancel >/dev/null && [ -f "$d/slurm.conf" ]; then
        local jobs
        jobs=$(SLURM_CONF=$d/slurm.conf timeout 10 squeue -h -o %A 2>/dev/null | sort -u)
        # shellcheck disable=SC2086
        [ -n "$jobs" ] && SLURM_CONF=$d/slurm.conf timeout 10 scancel --quiet $jobs 2>/dev/null
        for ((i = 0; i < 50; i++)); do
            [ -z "$(SLURM_CONF=$d/slurm.conf timeout 5 squeue -h -t R,CG -o %i 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
    local stepds
    stepds=$(cluster_procs "$d")
    stop_pids 10 "$(read_pid "$d/run/slurmd.pid")"
    # Leftover slurmstepd processes of this cluster (found before slurmd went).
    local left=
    for p in $stepds $(cluster_procs "$d"); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = slurmstepd ] && left="$left $p $(descendants "$p")"
    done
    # shellcheck disable=SC2086
    stop_pids 10 "$(read_pid "$d/run/slurmctld.pid")" "$(read_pid "$d/run/munged.pid")" $left
    rm -f "$d/run/slurmd.pid" "$d/run/slurmctld.pid" "$d/run/munged.pid"
    # A short directory under /tmp used for the sockets when DIR is long.
    if [ "$run" != "$d" ]; then
        case $run in /tmp/slurmtest.*) rm -rf "$run" ;; esac
        rm -f "$d/rundir"
    fi
    return 0
}

if [ "$CMD" = stop ]; then
    do_stop "$DIR"
    exit 0
fi

# ---------------------------------------------------------------- start --

skip() { echo "SKIP: $*"; exit 77; }
for c in slurmctld slurmd munged sinfo sbatch squeue scontrol; do
    command -v "$c" >/dev/null 2>&1 || skip "$c not found"
done
[ "$(id -u)" -eq 0 ] || skip "needs root (SlurmUser=root)"

mkdir -p "$DIR" || die "cannot create $DIR"
DIR=$(cd "$DIR" && pwd -P)
for f in slurmctld slurmd munged; do
    pid=$(read_pid "$DIR/run/$f.pid")
    pid_alive "$pid" && die "a cluster is already running in $DIR ($f pid $pid)"
done

# Unix socket paths are limited to 107 bytes; slurmd puts per-step sockets
# (NODE_JOBID.STEPID) in its spool directory.  When DIR is long, keep the munge
# socket and the spool under a short directory in /tmp instead.
RUN=$DIR
if [ ${#DIR} -gt 60 ]; then
    RUN=$(mktemp -d /tmp/slurmtest.XXXXXX) || die "mktemp failed"
    echo "$RUN" >"$DIR/rundir"
fi

rm -rf "$DIR/state" "$DIR/log" "$DIR/run" "$RUN/munge" "$RUN/spool"
mkdir -p "$DIR/state" "$DIR/log" "$DIR/run" "$RUN/munge" "$RUN/spool" || die "cannot populate $DIR"
chmod 0755 "$RUN/munge"   # jobs of any user must reach the socket; the key is 0400
[ "$RUN" != "$DIR" ] && chmod 0755 "$RUN"

NODE=$(hostname -s 2>/dev/null || hostname)
NODE=${NODE%%.*}
[ -n "$NODE" ] || NODE=localhost
CPUS=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
MEM_KB=$(awk '/^MemAvailable:/ {print $2; f=1} END {if (!f) print 0}' /proc/meminfo)
[ "$MEM_KB" -gt 0 ] || MEM_KB=$(awk '/^MemFree:/ {print $2}' /proc/meminfo)
MEM_MB=$((MEM_KB * 9 / 10 / 1024))
[ "$MEM_MB" -ge 64 ] || MEM_MB=64

# Two distinct free TCP ports.
free_ports() {
    if command -v python3 >/dev/null 2>&1; then
        python3 - <<'EOF' && return 0
import socket
ss = []
for _ in range(2):
    s = socket.socket()
    s.bind(("", 0))
    ss.append(s)
print(" ".join(str(s.getsockname()[1]) for s in ss))
EOF
    fi
    local got=() p tries=0
    while [ ${#got[@]} -lt 2 ] && [ $tries -lt 200 ]; do
        tries=$((tries + 1))
        p=$((20000 + RANDOM % 40000))
        [ ${#got[@]} -eq 1 ] && [ "${got[0]}" = "$p" ] && continue
        # A refused connection means nobody listens there.
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then got+=("$p"); fi
    done
    [ ${#got[@]} -eq 2 ] && echo "${got[*]}"
}
read -r CTLD_PORT SLURMD_PORT <<<"$(free_ports)"
if [ -z "${CTLD_PORT:-}" ] || [ -z "${SLURMD_PORT:-}" ]; then die "no free TCP ports found"; fi

MUNGE_SOCKET=$RUN/munge/munge.socket
CONF=$DIR/slurm.conf

cat >"$CONF" <<EOF
# Written by $PROG for a throwaway test cluster; do not edit.
ClusterName=cudalabtest
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$RUN/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$DIR/plugstack.conf
# No cgroups, no systemd: works in a container.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/log/jobcomp.log
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MaxArraySize=100001
# MinJobAge=5 (at most 5; slurmctld raises anything under 2 to 2) keeps
# sbatch --wait polling every 2 s; with the default 300 it backs off to 8 s
# and 32 s.  Finished jobs leave slurmctld 5 to ~65 s after they end; there is
# no accounting database (sacct does not work), but jobcomp.log has a line per
# finished job.  Every array task counts against MaxJobCount.
MaxJobCount=100000
MinJobAge=5
KillWait=5
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=60
# slurmctld starts waiting jobs about once a second whatever these say
# (so up to CPUs array tasks a second); backfill every second helps a little.
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,batch_sched_delay=0
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS Boards=1 SocketsPerBoard=1 CoresPerSocket=$CPUS ThreadsPerCore=1 RealMemory=$MEM_MB State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
: >"$DIR/plugstack.conf"
export SLURM_CONF=$CONF

fail() {
    log "$*"
    local f
    for f in "$DIR/log/munged.log" "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log" \
             "$DIR/log/munged.out" "$DIR/log/slurmctld.out" "$DIR/log/slurmd.out"; do
        [ -s "$f" ] || continue
        echo "==> $f <==" >&2
        tail -n 30 "$f" >&2
    done
    do_stop "$DIR"
    exit 1
}

wait_for() {  # wait_for SECONDS COMMAND...
    local secs=$1 i
    shift
    for ((i = 0; i < secs * 5; i++)); do
        "$@" && return 0
        sleep 0.2
    done
    return 1
}

daemon_alive() { pid_alive "$(read_pid "$DIR/run/$1.pid")"; }

# --- munged ---
KEY=$RUN/munge/munge.key
( umask 077
  if command -v mungekey >/dev/null 2>&1; then
      mungekey --create --keyfile="$KEY" --bits=1024 2>/dev/null || rm -f "$KEY"
  fi
  [ -s "$KEY" ] || dd if=/dev/urandom of="$KEY" bs=1024 count=1 2>/dev/null
) || fail "cannot create the munge key"
chmod 0400 "$KEY"
munged --force --socket="$MUNGE_SOCKET" --key-file="$KEY" \
    --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" \
    --seed-file="$RUN/munge/munged.seed" >"$DIR/log/munged.out" 2>&1 </dev/null \
    || fail "munged failed to start"
wait_for 10 test -S "$MUNGE_SOCKET" || fail "munged did not create $MUNGE_SOCKET"
if command -v munge >/dev/null 2>&1 && command -v unmunge >/dev/null 2>&1; then
    munge -n -S "$MUNGE_SOCKET" 2>/dev/null | unmunge -S "$MUNGE_SOCKET" >/dev/null 2>&1 \
        || fail "munge round trip through $MUNGE_SOCKET failed"
fi

# --- slurmctld, slurmd ---
# -i: ignore any state left from an earlier start (StateSaveLocation is fresh anyway).
slurmctld -i -f "$CONF" >"$DIR/log/slurmctld.out" 2>&1 </dev/null || fail "slurmctld failed to start"
wait_for 20 daemon_alive slurmctld || fail "slurmctld did not write its pid file"
wait_for 20 eval 'scontrol ping 2>/dev/null | grep -q "is UP"' || fail "slurmctld does not answer"
slurmd -f "$CONF" -N "$NODE" >"$DIR/log/slurmd.out" 2>&1 </dev/null || fail "slurmd failed to start"
wait_for 20 daemon_alive slurmd || fail "slurmd did not write its pid file"

node_idle() {
    local st
    st=$(sinfo -h -N -n "$NODE" -o %T 2>/dev/null | head -n 1)
    [ "$st" = idle ] && return 0
    case $st in *drain*|*inval*|*down*)
        # ReturnToService=2 should bring it back; nudge it once in a while.
        scontrol update NodeName="$NODE" State=RESUME >/dev/null 2>&1 ;;
    esac
    daemon_alive slurmctld || fail "slurmctld died"
    daemon_alive slurmd || fail "slurmd died"
    return 1
}
wait_for 60 node_idle || fail "node $NODE did not become idle within 60 s (state: $(sinfo -h -N -o %T 2>/dev/null))"

{
    echo "export SLURM_CONF=$CONF"
    echo "SLURM_CONF=$CONF"
    echo "CLUSTER_DIR=$DIR"
    echo "CLUSTER_PARTITION=debug"
    echo "CLUSTER_NODE=$NODE"
    echo "CLUSTER_CPUS=$CPUS"
    echo "CLUSTER_MEMORY_MB=$MEM_MB"
    echo "CLUSTER_SLURMCTLD_PORT=$CTLD_PORT"
    echo "CLUSTER_SLURMD_PORT=$SLURMD_PORT"
    echo "CLUSTER_MUNGE_SOCKET=$MUNGE_SOCKET"
    echo "CLUSTER_LOG_DIR=$DIR/log"
    echo "CLUSTER_JOBCOMP_LOG=$DIR/log/jobcomp.log"
} | tee "$DIR/cluster.env"
exit 0
