#!/usr/bin/env bash
# Runs a real CRI-O (built by hack/build-tools.sh crio) on this machine, with a
# configuration of its own, so that tests can scrape its metrics endpoint over
# TLS exactly as kube-rbac-proxy does on a node, or (CRIO_METRICS_TLS=0) over
# plain HTTP as MCO's 00-default drop-in configures it (docs/platform-fixture.md).
#
# usage: hack/crio.sh start|stop|status|clean
#
#   start   generate the configuration under $CRIO_DIR, start CRI-O as root
#           and wait until https://$CRIO_METRICS_HOST:$CRIO_METRICS_PORT/metrics
#           (http:// with CRIO_METRICS_TLS=0) serves container_runtime_crio_*
#           metrics.
#   stop    stop CRI-O, unmount whatever it left mounted under $CRIO_DIR and
#           remove its run-time state (keeps crio.log, tls/ and the storage),
#           so that a later start works.
#   status  exit 0 if the instance is running.
#   clean   stop, then remove $CRIO_DIR entirely.
#
# environment:
#   CRIO_DIR            state of this instance (default _output/crio). Every
#                       file CRI-O writes lives under it; several instances run
#                       side by side with distinct CRIO_DIR and port.
#   CRIO_METRICS_PORT   metrics port (default 9537)
#   CRIO_METRICS_HOST   metrics address, on loopback (default 127.0.0.1)
#   CRIO_METRICS_TLS    who configures the metrics endpoint (default 1):
#                       1         this script: a drop-in 10-metrics.conf with
#                                 the pair below; the probe uses https.
#                       0         the drop-ins the caller put in
#                                 $CRIO_DIR/crio.conf.d (e.g. MCO's 00-default:
#                                 plain HTTP); the probe uses http.
#                       external  those drop-ins, with a metrics_cert/key pair
#                                 of their own (e.g. the operator's
#                                 50-crio-metrics-tls.conf on top of
#                                 00-default); the probe uses https, verified
#                                 only when CRIO_METRICS_CA is given.
#                       With 0 and external this script writes no metrics
#                       setting (and removes a 10-metrics.conf it wrote
#                       before) and generates no certificate;
#                       CRIO_METRICS_HOST and CRIO_METRICS_PORT must then say
#                       where those drop-ins make CRI-O listen (for the probe).
#   CRIO_METRICS_CERT   serving certificate (default $CRIO_DIR/tls/tls.crt)
#   CRIO_METRICS_KEY    its key (default $CRIO_DIR/tls/tls.key). When neither
#                       file exists, a CA ($CRIO_DIR/tls/ca.{crt,key}) and a
#                       pair signed by it (localhost, 127.0.0.1) are generated.
#   CRIO_METRICS_CA     CA the readiness probe verifies the certificate with
#                       (default $CRIO_DIR/tls/ca.crt when it signed the
#                       current certificate, else the probe does not verify)
#   CRIO_LOG_LEVEL      CRI-O log level (default info; "debug" logs each
#                       certificate watcher event)
#   CRIO_START_TIMEOUT  seconds to wait for the metrics endpoint (default 60)
#   CRIO_BIN, PINNS_BIN default _output/bin/{crio,pinns}, built when missing
#   CONMON_BIN, RUNC_BIN default: found in PATH (Debian's conmon and runc)
#
# The metrics settings are not in crio.conf but in a drop-in under
# $CRIO_DIR/crio.conf.d, passed with --config-dir, the way the operator's
# MachineConfig drop-in (/etc/crio/crio.conf.d) configures them on nodes.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)

CRIO_DIR=$(realpath -m "${CRIO_DIR:-$root/_output/crio}")
CRIO_METRICS_PORT=${CRIO_METRICS_PORT:-9537}
CRIO_METRICS_HOST=${CRIO_METRICS_HOST:-127.0.0.1}
CRIO_METRICS_TLS=${CRIO_METRICS_TLS:-1}
case "$CRIO_METRICS_TLS" in
  0 | 1 | external) ;;
  *) echo "crio.sh: CRIO_METRICS_TLS must be 1, 0 or external, not $CRIO_METRICS_TLS" >&2; exit 2 ;;
esac
CRIO_METRICS_CERT=$(realpath -m "${CRIO_METRICS_CERT:-$CRIO_DIR/tls/tls.crt}")
CRIO_METRICS_KEY=$(realpath -m "${CRIO_METRICS_KEY:-$CRIO_DIR/tls/tls.key}")
CRIO_LOG_LEVEL=${CRIO_LOG_LEVEL:-info}
CRIO_START_TIMEOUT=${CRIO_START_TIMEOUT:-60}

pidfile=$CRIO_DIR/crio.pid
logfile=$CRIO_DIR/crio.log
socket=$CRIO_DIR/crio.sock

log() { echo "crio.sh [$CRIO_DIR]: $*" >&2; }
die() { log "$*"; exit 1; }

running_pid() {
  local pid
  [ -f "$pidfile" ] || return 1
  pid=$(cat "$pidfile")
  [ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
  # Guard against pid reuse: the process must be our crio.
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "--config $CRIO_DIR/crio.conf" || return 1
  echo "$pid"
}

binaries() {
  CRIO_BIN=${CRIO_BIN:-$root/_output/bin/crio}
  PINNS_BIN=${PINNS_BIN:-$root/_output/bin/pinns}
  if [ ! -x "$CRIO_BIN" ] || [ ! -x "$PINNS_BIN" ]; then
    "$root/hack/build-tools.sh" crio >&2
  fi
  CRIO_BIN=$(realpath "$CRIO_BIN")
  PINNS_BIN=$(realpath "$PINNS_BIN")
  CONMON_BIN=${CONMON_BIN:-$(command -v conmon || true)}
  RUNC_BIN=${RUNC_BIN:-$(command -v runc || true)}
  [ -x "$CONMON_BIN" ] || die "conmon not found (apt-get install conmon, or run hack/build-tools.sh crio)"
  [ -x "$RUNC_BIN" ] || die "runc not found (apt-get install runc, or run hack/build-tools.sh crio)"
}

# Generates a CA and a serving pair signed by it, unless the pair exists.
ensure_tls() {
  if [ -e "$CRIO_METRICS_CERT" ] || [ -e "$CRIO_METRICS_KEY" ]; then
    if [ ! -r "$CRIO_METRICS_CERT" ] || [ ! -r "$CRIO_METRICS_KEY" ]; then
      die "only one of $CRIO_METRICS_CERT and $CRIO_METRICS_KEY exists"
    fi
    return
  fi
  command -v openssl >/dev/null || die "openssl is needed to generate the metrics certificate"
  local tls=$CRIO_DIR/tls tmp
  mkdir -p "$tls" "$(dirname "$CRIO_METRICS_CERT")" "$(dirname "$CRIO_METRICS_KEY")"
  tmp=$(mktemp -d)
  if [ ! -f "$tls/ca.crt" ] || [ ! -f "$tls/ca.key" ]; then
    (umask 077; openssl ecparam -name prime256v1 -genkey -noout -out "$tls/ca.key")
    openssl req -x509 -new -key "$tls/ca.key" -sha256 -days 365 -subj "/CN=crio-metrics-local-ca" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
      -out "$tls/ca.crt" 2>/dev/null
  fi
  (umask 077; openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/tls.key")
  openssl req -new -key "$tmp/tls.key" -subj "/CN=localhost" -out "$tmp/tls.csr" 2>/dev/null
  printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" \
    "extendedKeyUsage=serverAuth" "subjectAltName=DNS:localhost,IP:127.0.0.1" >"$tmp/ext"
  openssl x509 -req -in "$tmp/tls.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial \
    -days 365 -sha256 -extfile "$tmp/ext" -out "$tmp/tls.crt" 2>/dev/null
  if [ "$CRIO_METRICS_CERT" = "$CRIO_METRICS_KEY" ]; then
    # One file holding both (CRI-O accepts the same path for metrics_cert and
    # metrics_key).
    cat "$tmp/tls.key" "$tmp/tls.crt" >"$tmp/tls.pem"
    install -m 0600 "$tmp/tls.pem" "$CRIO_METRICS_CERT"
  else
    install -m 0644 "$tmp/tls.crt" "$CRIO_METRICS_CERT"
    install -m 0600 "$tmp/tls.key" "$CRIO_METRICS_KEY"
  fi
  rm -rf "$tmp"
  log "generated metrics certificate $CRIO_METRICS_CERT (CA $tls/ca.crt)"
}

write_config() {
  local d=$CRIO_DIR
  mkdir -p "$d/crio.conf.d" "$d/storage" "$d/run/storage" "$d/run/runc" "$d/exits" \
    "$d/attach" "$d/ns" "$d/pods-logs" "$d/lib" "$d/cni/net.d" "$d/cni/bin" "$d/hooks.d" \
    "$d/cdi" "$d/keys" "$d/policies" "$d/tmp"
  # Signature policy for image pulls (none happen in these tests).
  cat >"$d/policy.json" <<'EOF'
{"default": [{"type": "insecureAcceptAnything"}]}
EOF
  # Keep containers/storage and containers/image away from /etc/containers.
  cat >"$d/storage.conf" <<EOF
[storage]
driver = "vfs"
runroot = "$d/run/storage"
graphroot = "$d/storage"
EOF
  : >"$d/registries.conf"

  cat >"$d/crio.conf" <<EOF
# Generated by hack/crio.sh; every path is under CRIO_DIR.
[crio]
root = "$d/storage"
runroot = "$d/run/storage"
storage_driver = "vfs"
log_dir = "$d/pods-logs"
version_file = "$d/run/version"
version_file_persist = "$d/lib/version"
clean_shutdown_file = "$d/lib/clean.shutdown"
internal_wipe = true
internal_repair = true

[crio.api]
listen = "$socket"
stream_address = "127.0.0.1"
stream_port = "0"

[crio.runtime]
cgroup_manager = "cgroupfs"
default_runtime = "runc"
# No iptables/nftables port mapping on this machine.
disable_hostport_mapping = true
pinns_path = "$PINNS_BIN"
namespaces_dir = "$d/ns"
container_exits_dir = "$d/exits"
container_attach_socket_dir = "$d/attach"
hooks_dir = ["$d/hooks.d"]
cdi_spec_dirs = ["$d/cdi"]
decryption_keys_path = "$d/keys"
irqbalance_config_file = "$d/irqbalance"
irqbalance_config_restore_file = "disable"
enable_criu_support = false
log_level = "$CRIO_LOG_LEVEL"

[crio.runtime.runtimes.runc]
runtime_type = "oci"
runtime_path = "$RUNC_BIN"
runtime_root = "$d/run/runc"
monitor_path = "$CONMON_BIN"
monitor_cgroup = "pod"

[crio.image]
# Never pull from the network: a pod sandbox needs the pause image, and the
# default (registry.k8s.io) would make CRI-O resolve and contact a public
# registry. A localhost reference fails on loopback instead. These tests use
# CRI-O for its metrics endpoint and CRI API only, not to run pods.
pause_image = "localhost/crio-local/pause:none"
signature_policy = "$d/policy.json"
signature_policy_dir = "$d/policies"
big_files_temporary_dir = "$d/tmp"

# No CNI configuration is needed: CRI-O starts and only reports the network
# as not ready (NetworkReady=false) until a configuration appears here.
[crio.network]
network_dir = "$d/cni/net.d"
plugin_dirs = ["$d/cni/bin"]

[crio.nri]
enable_nri = false

[crio.tracing]
enable_tracing = false
EOF

  if [ "$CRIO_METRICS_TLS" != 1 ]; then
    # The caller's drop-ins configure the metrics endpoint; a drop-in of ours
    # from an earlier start would override them.
    rm -f "$d/crio.conf.d/10-metrics.conf"
    return
  fi
  # The drop-in, as the operator's MachineConfig writes it on nodes (there the
  # paths are /var/lib/crio-metrics/tls.{crt,key} and the port 9537).
  cat >"$d/crio.conf.d/10-metrics.conf" <<EOF
[crio.metrics]
enable_metrics = true
metrics_host = "$CRIO_METRICS_HOST"
metrics_port = $CRIO_METRICS_PORT
metrics_cert = "$CRIO_METRICS_CERT"
metrics_key = "$CRIO_METRICS_KEY"
EOF
}

# How the readiness probe verifies the metrics certificate: with
# CRIO_METRICS_CA when given, with $CRIO_DIR/tls/ca.crt when it signed the
# current certificate, else not at all (the probe only checks readiness).
probe_verify=()
choose_probe_verify() {
  local ca=${CRIO_METRICS_CA:-$CRIO_DIR/tls/ca.crt}
  probe_verify=(-k)
  if [ -n "${CRIO_METRICS_CA:-}" ] ||
    { [ -f "$ca" ] && openssl verify -CAfile "$ca" "$CRIO_METRICS_CERT" >/dev/null 2>&1; }; then
    probe_verify=(--cacert "$ca")
  fi
}

choose_probe() {
  case "$CRIO_METRICS_TLS" in
    1) choose_probe_verify ;;
    0) probe_scheme=http probe_verify=() ;;
    external)
      probe_verify=(-k)
      if [ -n "${CRIO_METRICS_CA:-}" ]; then probe_verify=(--cacert "$CRIO_METRICS_CA"); fi
      ;;
  esac
}

probe_scheme=https
metrics_url() { echo "$probe_scheme://$CRIO_METRICS_HOST:$CRIO_METRICS_PORT/metrics"; }

metrics_ready() {
  curl -sS --max-time 5 "${probe_verify[@]}" "$(metrics_url)" 2>/dev/null |
    grep -q '^container_runtime_crio_'
}

# port_in_use: something listens on the metrics port at the metrics address
# or at every address (other loopback addresses may use the same port).
port_in_use() {
  ss -Hltn "sport = :$CRIO_METRICS_PORT" 2>/dev/null | awk '{print $4}' |
    grep -qxF -e "$CRIO_METRICS_HOST:$CRIO_METRICS_PORT" -e "0.0.0.0:$CRIO_METRICS_PORT" \
      -e "*:$CRIO_METRICS_PORT" -e "[::]:$CRIO_METRICS_PORT"
}

start() {
  [ "$(id -u)" -eq 0 ] || die "CRI-O must run as root"
  if pid=$(running_pid); then die "already running (pid $pid)"; fi
  # A unix socket path is limited to 107 bytes.
  [ ${#socket} -lt 108 ] || die "CRIO_DIR is too long for a unix socket path: $socket"
  if port_in_use; then
    die "port $CRIO_METRICS_HOST:$CRIO_METRICS_PORT is already in use"
  fi
  binaries
  mkdir -p "$CRIO_DIR"
  cleanup_state
  if [ "$CRIO_METRICS_TLS" = 1 ]; then ensure_tls; fi
  write_config
  choose_probe

  log "starting $CRIO_BIN (metrics $(metrics_url), socket $socket)"
  echo "=== $(date -u +%FT%TZ) start" >>"$logfile"
  # Working directory "/", as under systemd on a node: CRI-O 1.34's metrics
  # certificate watcher also watches its working directory (it adds the empty
  # CA path, which fsnotify cleans to "."), so a busy or log-holding working
  # directory would make it reload on every write there.
  (
    cd /
    export CONTAINERS_STORAGE_CONF=$CRIO_DIR/storage.conf
    export CONTAINERS_REGISTRIES_CONF=$CRIO_DIR/registries.conf
    export TMPDIR=$CRIO_DIR/tmp
    exec setsid "$CRIO_BIN" --config "$CRIO_DIR/crio.conf" --config-dir "$CRIO_DIR/crio.conf.d" \
      </dev/null >>"$logfile" 2>&1
  ) &
  echo $! >"$pidfile"

  local deadline=$((SECONDS + CRIO_START_TIMEOUT))
  until metrics_ready; do
    if ! running_pid >/dev/null; then
      grep -v 'Current CRI-O configuration' "$logfile" | tail -n 20 >&2
      rm -f "$pidfile"
      die "CRI-O exited during start (log: $logfile)"
    fi
    if [ $SECONDS -ge $deadline ]; then
      grep -v 'Current CRI-O configuration' "$logfile" | tail -n 20 >&2
      stop
      die "metrics endpoint not ready after ${CRIO_START_TIMEOUT}s (log: $logfile)"
    fi
    sleep 0.2
  done
  log "ready (pid $(cat "$pidfile"))"
}

# Unmounts everything mounted under CRIO_DIR (namespace pins, storage) and
# removes run-time state. Safe to run when CRI-O is not running.
cleanup_state() {
  local m
  # Deepest mount points first.
  while read -r m; do
    [ -n "$m" ] || continue
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || log "could not unmount $m"
  done < <(findmnt -rn -o TARGET | awk -v d="$CRIO_DIR/" 'index($0, d) == 1' | sort -r)
  rm -rf "$CRIO_DIR/run" "$CRIO_DIR/exits" "$CRIO_DIR/attach" "$CRIO_DIR/ns" \
    "$CRIO_DIR/seccomp" "$CRIO_DIR/tmp" "$socket" "$pidfile"
}

# conmon processes of this instance outlive CRI-O by design; end them too.
stop_conmons() {
  local p conmon
  conmon=$(realpath "${CONMON_BIN:-$(command -v conmon || echo /usr/bin/conmon)}")
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/exe" 2>/dev/null)" = "$conmon" ] || continue
    tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -- "$CRIO_DIR/" || continue
    kill -KILL "${p#/proc/}" 2>/dev/null || true
  done
}

stop() {
  local pid
  if pid=$(running_pid); then
    kill -TERM "$pid"
    local deadline=$((SECONDS + 30))
    while [ -d "/proc/$pid" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
    if [ -d "/proc/$pid" ]; then
      log "CRI-O did not stop within 30s, killing it"
      kill -KILL "$pid" 2>/dev/null || true
      while [ -d "/proc/$pid" ]; do sleep 0.1; done
    fi
    log "stopped (pid $pid)"
  fi
  stop_conmons
  cleanup_state
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) if pid=$(running_pid); then echo "running (pid $pid)"; else echo "not running"; exit 1; fi ;;
  clean) stop; rm -rf "$CRIO_DIR" ;;
  *) echo "usage: $0 start|stop|status|clean" >&2; exit 2 ;;
esac
