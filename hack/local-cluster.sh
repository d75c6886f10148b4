#!/usr/bin/env bash
# A local control plane for e2e tests, built from upstream sources pinned in the
# tools modules under hack/tools/ (see docs/local-control-plane.md):
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, and kwok
# simulating the nodes and the lifecycle of their pods. Everything listens on
# 127.0.0.1 only.
#
# usage: hack/local-cluster.sh up       start (no-op when already up)
#        hack/local-cluster.sh down     stop every component, remove all state
#        hack/local-cluster.sh status   report; exit 0 only when up and healthy
#        hack/local-cluster.sh nodes N  scale the simulated nodes to N
#        hack/local-cluster.sh restart-apiserver
#                                       stop kube-apiserver and start it again
#                                       with the same arguments (etcd and the
#                                       other components keep running)
#
# Variables (defaults in brackets):
#   LCP_DIR                 state directory [_output/local-cluster]
#   LCP_NODES               nodes created by up; node 0 is a master [3]
#   LCP_PLATFORM            Infrastructure status.platformStatus.type [BareMetal]
#   LCP_TOPOLOGY            Infrastructure status.controlPlaneTopology [HighlyAvailable]
#   LCP_INFRA_TOPOLOGY      Infrastructure status.infrastructureTopology
#                           [HighlyAvailable, SingleReplica if LCP_TOPOLOGY is]
#   LCP_MONITORING_CRDS     0 leaves out ServiceMonitor and PrometheusRule [1]
#   LCP_MACHINECONFIG_CRDS  0 leaves out MachineConfig, MachineConfigPool,
#                           MachineConfigNode and MachineConfiguration (and its
#                           object cluster) [1]
#   LCP_NODE_LEASE_SECONDS  node lease duration; kwok renews every quarter of
#                           it, so N nodes cost 4N/LEASE writes a second [300]
#   LCP_KWOK_LOG_LEVEL      kwok's log level: DEBUG, INFO, WARN or ERROR [WARN]
#   LCP_AUDIT               1 writes an audit log of every request (level
#                           Metadata) to $LCP_DIR/logs/audit.log [0]
#   LCP_APISERVER_PORT [16443]  LCP_ETCD_PORT [16379]  LCP_ETCD_PEER_PORT [16380]
#   LCP_KCM_PORT [16257]  LCP_SCHEDULER_PORT [16259]  LCP_KWOK_PORT [16247]
#   LCP_SERVICE_CIDR [10.96.0.0/16]  LCP_POD_CIDR [10.128.0.0/14]
#   LCP_OPENSHIFT_API_VERSION  only when go.mod does not require github.com/openshift/api
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

LCP_DIR=${LCP_DIR:-$root/_output/local-cluster}
case "$LCP_DIR" in /*) ;; *) LCP_DIR="$PWD/$LCP_DIR" ;; esac
LCP_NODES=${LCP_NODES:-3}
LCP_PLATFORM=${LCP_PLATFORM:-BareMetal}
LCP_TOPOLOGY=${LCP_TOPOLOGY:-HighlyAvailable}
LCP_MONITORING_CRDS=${LCP_MONITORING_CRDS:-1}
LCP_MACHINECONFIG_CRDS=${LCP_MACHINECONFIG_CRDS:-1}
LCP_NODE_LEASE_SECONDS=${LCP_NODE_LEASE_SECONDS:-300}
LCP_KWOK_LOG_LEVEL=${LCP_KWOK_LOG_LEVEL:-WARN}
LCP_AUDIT=${LCP_AUDIT:-0}
LCP_APISERVER_PORT=${LCP_APISERVER_PORT:-16443}
LCP_ETCD_PORT=${LCP_ETCD_PORT:-16379}
LCP_ETCD_PEER_PORT=${LCP_ETCD_PEER_PORT:-16380}
LCP_KCM_PORT=${LCP_KCM_PORT:-16257}
LCP_SCHEDULER_PORT=${LCP_SCHEDULER_PORT:-16259}
LCP_KWOK_PORT=${LCP_KWOK_PORT:-16247}
LCP_SERVICE_CIDR=${LCP_SERVICE_CIDR:-10.96.0.0/16}
LCP_POD_CIDR=${LCP_POD_CIDR:-10.128.0.0/14}
if [ -z "${LCP_INFRA_TOPOLOGY:-}" ]; then
  case "$LCP_TOPOLOGY" in
    SingleReplica) LCP_INFRA_TOPOLOGY=SingleReplica ;;
    *) LCP_INFRA_TOPOLOGY=HighlyAvailable ;;
  esac
fi
# The openshift/api version used when the main module does not require it (yet).
default_openshift_api_version=v0.0.0-20260715165912-72066cc9718b
prometheus_operator_version=v0.88.0

# Components in start order; down stops them in reverse.
components=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

pki=$LCP_DIR/pki
kubeconfig=$LCP_DIR/admin.kubeconfig
bin=$root/_output/bin
# kubectl's discovery cache is keyed by host:port; keep ours with the state so
# that a cluster brought up again with other CRDs never sees a stale one.
export KUBECACHEDIR=$LCP_DIR/kubectl-cache

log() { echo "local-cluster: $*" >&2; }
die() { log "error: $*"; exit 1; }

k() { "$bin/kubectl" --kubeconfig "$kubeconfig" "$@"; }

# ---------------------------------------------------------------------------
# prerequisites

ensure_packages() {
  local missing=() cmd pkg
  for pair in openssl:openssl curl:curl ss:iproute2 setsid:util-linux base64:coreutils; do
    cmd=${pair%%:*} pkg=${pair#*:}
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "missing packages ${missing[*]}; install them or run as root"
  log "installing ${missing[*]}"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

ensure_tools() {
  if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
    export PATH=/usr/local/go/bin:$PATH
  fi
  "$root/hack/build-tools.sh" etcd kube kwok
  for b in etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok; do
    [ -x "$bin/$b" ] || die "tool $b was not built"
  done
}

# ---------------------------------------------------------------------------
# processes

pidfile() { echo "$LCP_DIR/pids/$1.pid"; }

# alive NAME: the component's process (its process group leader) is running.
alive() {
  local f pid
  f=$(pidfile "$1")
  [ -f "$f" ] || return 1
  pid=$(cat "$f")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# start NAME BINARY ARGS...: runs the binary in a session (and process group)
# of its own, so that it outlives this shell and can be stopped as a group.
# The process writes its own pid before exec'ing the binary.
start() {
  local name=$1 f
  shift
  f=$(pidfile "$name")
  rm -f "$f"
  log "starting $name"
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$f" "$@" \
    </dev/null >>"$LCP_DIR/logs/$name.log" 2>&1 &
  for _ in $(seq 50); do [ -s "$f" ] && return 0; sleep 0.1; done
  die "$name did not start; see $LCP_DIR/logs/$name.log"
}

# group_alive PGID: some process of the group is still running.
group_alive() { kill -0 -- "-$1" 2>/dev/null; }

# stop_pid PID: TERM, then KILL after a grace period, the process group PID
# (every component leads its own) and the process itself.
stop_pid() {
  local pid=$1 i
  kill -TERM -- "-$pid" 2>/dev/null || true
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 100); do
    group_alive "$pid" || kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  log "process $pid did not exit after TERM; killing it"
  kill -KILL -- "-$pid" 2>/dev/null || true
  kill -KILL "$pid" 2>/dev/null || true
  for i in $(seq 50); do
    group_alive "$pid" || kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  log "warning: process $pid survived KILL"
}

# stray_pids: processes of ours without (or with a stale) pid file: those
# whose command line names this state directory and whose executable is one
# of the tools built for it.
stray_pids() {
  local p exe
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [ "$p" = $$ ] && continue
    exe=$(readlink "/proc/$p/exe" 2>/dev/null) || continue
    case "$exe" in "$root"/_output/tools/*) ;; *) continue ;; esac
    tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | grep -qF -- "$LCP_DIR/" && echo "$p"
  done
  return 0
}

stop_all() {
  local i name pid
  for (( i=${#components[@]}-1; i>=0; i-- )); do
    name=${components[i]}
    [ -f "$(pidfile "$name")" ] || continue
    pid=$(cat "$(pidfile "$name")")
    if [ -n "$pid" ] && { kill -0 "$pid" 2>/dev/null || group_alive "$pid"; }; then
      log "stopping $name (pid $pid)"
      stop_pid "$pid"
    fi
    rm -f "$(pidfile "$name")"
  done
  for pid in $(stray_pids); do
    log "stopping stray process $pid ($(tr '\0' ' ' </proc/"$pid"/cmdline 2>/dev/null | cut -c1-80))"
    stop_pid "$pid"
  done
}

port_in_use() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }

# wait_for WHAT TIMEOUT COMPONENT CMD...: polls CMD until it succeeds.
wait_for() {
  local what=$1 timeout=$2 comp=$3 deadline
  shift 3
  deadline=$(( $(date +%s) + timeout ))
  until "$@" >/dev/null 2>&1; do
    if [ -n "$comp" ] && ! alive "$comp"; then
      tail -n 30 "$LCP_DIR/logs/$comp.log" >&2 || true
      die "$comp exited while waiting for $what; log: $LCP_DIR/logs/$comp.log"
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      [ -n "$comp" ] && { tail -n 30 "$LCP_DIR/logs/$comp.log" >&2 || true; }
      die "timed out after ${timeout}s waiting for $what${comp:+; log: $LCP_DIR/logs/$comp.log}"
    fi
    sleep "${WAIT_INTERVAL:-0.5}"
  done
}

https_ok() { curl -fsS --max-time 5 --cacert "$pki/ca.crt" "$@" | grep -qx ok; }
etcd_healthy() { curl -fsS --max-time 5 "http://127.0.0.1:$LCP_ETCD_PORT/health" | grep -q '"health":"true"'; }
apiserver_ready() { https_ok --cert "$pki/admin.crt" --key "$pki/admin.key" "https://127.0.0.1:$LCP_APISERVER_PORT/readyz"; }
kcm_healthy() { https_ok "https://127.0.0.1:$LCP_KCM_PORT/healthz"; }
scheduler_healthy() { https_ok "https://127.0.0.1:$LCP_SCHEDULER_PORT/healthz"; }
kwok_healthy() { curl -fsS --max-time 5 "http://127.0.0.1:$LCP_KWOK_PORT/healthz" | grep -qx ok; }

healthy() {
  case "$1" in
    etcd) etcd_healthy ;;
    kube-apiserver) apiserver_ready ;;
    kube-controller-manager) kcm_healthy ;;
    kube-scheduler) scheduler_healthy ;;
    kwok) kwok_healthy ;;
  esac
}

# ---------------------------------------------------------------------------
# certificates and kubeconfigs

# sign NAME SUBJECT EXTENSIONS [CA]: a key and a certificate signed by the CA
# (ca unless named).
sign() {
  local name=$1 subj=$2 ext=$3 ca=${4:-ca}
  openssl ecparam -name prime256v1 -genkey -noout -out "$pki/$name.key" 2>/dev/null
  openssl req -new -key "$pki/$name.key" -subj "$subj" -out "$pki/$name.csr" 2>/dev/null
  printf '%s\n' "$ext" >"$pki/$name.ext"
  openssl x509 -req -in "$pki/$name.csr" -CA "$pki/$ca.crt" -CAkey "$pki/$ca.key" -CAcreateserial \
    -days 365 -sha256 -extfile "$pki/$name.ext" -out "$pki/$name.crt" 2>/dev/null
  rm -f "$pki/$name.csr" "$pki/$name.ext"
}

client_ext='basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth'

serving_ext() {
  printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=%s\n' "$1"
}

# The first address of the service range is the kubernetes Service's ClusterIP.
first_service_ip() {
  local net=${LCP_SERVICE_CIDR%/*} a b c d
  IFS=. read -r a b c d <<<"$net"
  echo "$a.$b.$c.$((d + 1))"
}

# make_ca NAME CN: a self-signed CA.
make_ca() {
  openssl ecparam -name prime256v1 -genkey -noout -out "$pki/$1.key" 2>/dev/null
  openssl req -x509 -new -key "$pki/$1.key" -subj "/CN=$2" -days 3650 -sha256 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
    -out "$pki/$1.crt" 2>/dev/null
}

gen_pki() {
  mkdir -p "$pki"
  chmod 700 "$pki"
  make_ca ca local-cluster-ca
  # The request-header (front proxy) CA: the API server's aggregation layer and
  # delegated authentication (kube-system/extension-apiserver-authentication).
  make_ca front-proxy-ca local-cluster-front-proxy-ca
  sign front-proxy-client "/CN=front-proxy-client" "$client_ext" front-proxy-ca
  sign apiserver "/CN=kube-apiserver" "$(serving_ext "IP:127.0.0.1,IP:$(first_service_ip),DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local")"
  sign kube-controller-manager-serving "/CN=kube-controller-manager" "$(serving_ext "IP:127.0.0.1,DNS:localhost")"
  sign kube-scheduler-serving "/CN=kube-scheduler" "$(serving_ext "IP:127.0.0.1,DNS:localhost")"
  sign admin "/O=system:masters/CN=local-cluster-admin" "$client_ext"
  sign kube-controller-manager "/CN=system:kube-controller-manager" "$client_ext"
  sign kube-scheduler "/CN=system:kube-scheduler" "$client_ext"
  # kwok acts as the kubelet of every simulated node: it writes node and pod
  # status, leases and events, and deletes terminated pods.
  sign kwok "/O=system:masters/CN=kwok-controller" "$client_ext"
  sign apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" "$client_ext"
  # service-account token signing key
  openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
  rm -f "$pki"/*.srl
}

# write_kubeconfig FILE USER: a kubeconfig with that user's embedded client cert.
write_kubeconfig() {
  local file=$1 user=$2
  cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local-cluster
  cluster:
    server: https://127.0.0.1:$LCP_APISERVER_PORT
    certificate-authority-data: $(base64 -w0 <"$pki/ca.crt")
users:
- name: $user
  user:
    client-certificate-data: $(base64 -w0 <"$pki/$user.crt")
    client-key-data: $(base64 -w0 <"$pki/$user.key")
contexts:
- name: local-cluster
  context:
    cluster: local-cluster
    user: $user
current-context: local-cluster
EOF
  chmod 600 "$file"
}

# ---------------------------------------------------------------------------
# components

start_etcd() {
  start etcd "$bin/etcd" \
    --name=local-cluster \
    --data-dir="$LCP_DIR/etcd" \
    --listen-client-urls="http://127.0.0.1:$LCP_ETCD_PORT" \
    --advertise-client-urls="http://127.0.0.1:$LCP_ETCD_PORT" \
    --listen-peer-urls="http://127.0.0.1:$LCP_ETCD_PEER_PORT" \
    --initial-advertise-peer-urls="http://127.0.0.1:$LCP_ETCD_PEER_PORT" \
    --initial-cluster="local-cluster=http://127.0.0.1:$LCP_ETCD_PEER_PORT" \
    --initial-cluster-state=new \
    --quota-backend-bytes=8589934592 \
    --unsafe-no-fsync \
    --log-level=warn
  wait_for "etcd health" 60 etcd etcd_healthy
}

# The API server listens on 127.0.0.1 only. Endpoints and EndpointSlices may
# not hold loopback addresses, so the default/kubernetes Service gets a
# ClusterIP but no endpoints (--endpoint-reconciler-type=none; nothing runs
# inside the cluster that would need them).
start_apiserver() {
  local audit=()
  if [ "$LCP_AUDIT" = 1 ]; then
    cat >"$LCP_DIR/audit-policy.yaml" <<EOF
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
EOF
    audit=(--audit-policy-file="$LCP_DIR/audit-policy.yaml" --audit-log-path="$LCP_DIR/logs/audit.log"
           --audit-log-maxsize=100000 --audit-log-maxbackup=1)
  fi
  start kube-apiserver "$bin/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$LCP_ETCD_PORT" \
    --bind-address=127.0.0.1 \
    --advertise-address=127.0.0.1 \
    --endpoint-reconciler-type=none \
    --kubelet-preferred-address-types=InternalIP \
    --secure-port="$LCP_APISERVER_PORT" \
    --tls-cert-file="$pki/apiserver.crt" \
    --tls-private-key-file="$pki/apiserver.key" \
    --client-ca-file="$pki/ca.crt" \
    --requestheader-client-ca-file="$pki/front-proxy-ca.crt" \
    --requestheader-allowed-names=front-proxy-client \
    --requestheader-username-headers=X-Remote-User \
    --requestheader-group-headers=X-Remote-Group \
    --requestheader-extra-headers-prefix=X-Remote-Extra- \
    --proxy-client-cert-file="$pki/front-proxy-client.crt" \
    --proxy-client-key-file="$pki/front-proxy-client.key" \
    --kubelet-client-certificate="$pki/apiserver-kubelet-client.crt" \
    --kubelet-client-key="$pki/apiserver-kubelet-client.key" \
    --authorization-mode=Node,RBAC \
    --enable-admission-plugins=NodeRestriction \
    --allow-privileged=true \
    --service-cluster-ip-range="$LCP_SERVICE_CIDR" \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$pki/sa.pub" \
    --service-account-signing-key-file="$pki/sa.key" \
    --profiling=false \
    "${audit[@]}" \
    --v=1
  wait_for "kube-apiserver /readyz" 180 kube-apiserver apiserver_ready
}

start_controller_manager() {
  local kc=$LCP_DIR/kube-controller-manager.kubeconfig
  # Nodes are unhealthy once neither their Lease nor their status was renewed
  # for this long (or, when new, they were not Ready for this long); kwok
  # renews the Lease every quarter of its duration.
  local grace=$(( LCP_NODE_LEASE_SECONDS + 10 ))
  start kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig="$kc" \
    --authentication-kubeconfig="$kc" \
    --authorization-kubeconfig="$kc" \
    --bind-address=127.0.0.1 \
    --secure-port="$LCP_KCM_PORT" \
    --tls-cert-file="$pki/kube-controller-manager-serving.crt" \
    --tls-private-key-file="$pki/kube-controller-manager-serving.key" \
    --client-ca-file="$pki/ca.crt" \
    --controllers='*' \
    --use-service-account-credentials=true \
    --service-account-private-key-file="$pki/sa.key" \
    --root-ca-file="$pki/ca.crt" \
    --cluster-signing-cert-file="$pki/ca.crt" \
    --cluster-signing-key-file="$pki/ca.key" \
    --service-cluster-ip-range="$LCP_SERVICE_CIDR" \
    --node-monitor-grace-period="${grace}s" \
    --node-startup-grace-period="${grace}s" \
    --kube-api-qps=200 \
    --kube-api-burst=400 \
    --leader-elect=false \
    --profiling=false \
    --v=1
  wait_for "kube-controller-manager /healthz" 120 kube-controller-manager kcm_healthy
}

start_scheduler() {
  local kc=$LCP_DIR/kube-scheduler.kubeconfig
  cat >"$LCP_DIR/kube-scheduler.yaml" <<EOF
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: $kc
  qps: 200
  burst: 400
leaderElection:
  leaderElect: false
EOF
  start kube-scheduler "$bin/kube-scheduler" \
    --config="$LCP_DIR/kube-scheduler.yaml" \
    --authentication-kubeconfig="$kc" \
    --authorization-kubeconfig="$kc" \
    --bind-address=127.0.0.1 \
    --secure-port="$LCP_SCHEDULER_PORT" \
    --tls-cert-file="$pki/kube-scheduler-serving.crt" \
    --tls-private-key-file="$pki/kube-scheduler-serving.key" \
    --client-ca-file="$pki/ca.crt" \
    --profiling=false \
    --v=1
  wait_for "kube-scheduler /healthz" 120 kube-scheduler scheduler_healthy
}

start_kwok() {
  local stages
  stages=$(dirname "$(readlink -f "$bin/kwok")")/stages
  [ -d "$stages" ] || die "kwok stages missing at $stages"
  mkdir -p "$LCP_DIR/kwok"
  # More workers than kwok's default 4, for thousands of nodes.
  cat >"$LCP_DIR/kwok/config.yaml" <<EOF
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  nodePlayStageParallelism: 16
  podPlayStageParallelism: 16
  nodeLeaseParallelism: 16
EOF
  # KWOK_WORKDIR keeps kwok from reading ~/.kwok/kwok.yaml.
  start kwok env KWOK_WORKDIR="$LCP_DIR/kwok" "$bin/kwok" \
    --kubeconfig="$LCP_DIR/kwok.kubeconfig" \
    --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
    --node-lease-duration-seconds="$LCP_NODE_LEASE_SECONDS" \
    --cidr="$LCP_POD_CIDR" \
    --server-address="127.0.0.1:$LCP_KWOK_PORT" \
    --config="$LCP_DIR/kwok/config.yaml,$(find "$stages" -name '*.yaml' | sort | paste -sd, -)" \
    --v="$LCP_KWOK_LOG_LEVEL"
  wait_for "kwok /healthz" 60 kwok kwok_healthy
}

# ---------------------------------------------------------------------------
# nodes

# node_ip I: 127.0.K.N for node index I, N in 1..254, K from 1 up.
node_ip() { echo "127.0.$(( $1 / 254 + 1 )).$(( $1 % 254 + 1 ))"; }
node_name() { if [ "$1" -eq 0 ]; then echo master-0; else echo "worker-$1"; fi; }

# node_manifest I: the Node, with the status kwok keeps (addresses, capacity).
# Status is accepted on create only, so nodes are created, never applied.
node_manifest() {
  local i=$1 name ip role spec
  name=$(node_name "$i") ip=$(node_ip "$i")
  if [ "$i" -eq 0 ]; then
    role='    node-role.kubernetes.io/master: ""
    node-role.kubernetes.io/control-plane: ""'
    spec='spec:
  taints:
  - key: node-role.kubernetes.io/master
    effect: NoSchedule'
  else
    role='    node-role.kubernetes.io/worker: ""'
    spec='spec: {}'
  fi
  cat <<EOF
---
apiVersion: v1
kind: Node
metadata:
  name: $name
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    type: kwok
    local-cluster/node-index: "$i"
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    kubernetes.io/hostname: $name
    topology.kubernetes.io/region: local
    topology.kubernetes.io/zone: local-a
$role
$spec
status:
  addresses:
  - type: InternalIP
    address: $ip
  - type: Hostname
    address: $name
  capacity:
    cpu: "16"
    memory: 64Gi
    pods: "250"
    ephemeral-storage: 200Gi
  allocatable:
    cpu: "16"
    memory: 64Gi
    pods: "250"
    ephemeral-storage: 200Gi
  nodeInfo:
    architecture: amd64
    operatingSystem: linux
EOF
}

# existing_node_indexes: indexes of the simulated nodes that exist.
existing_node_indexes() {
  k get nodes -l type=kwok -o go-template='{{range .items}}{{index .metadata.labels "local-cluster/node-index"}}{{"\n"}}{{end}}'
}

# node_states: one line per simulated node, "ready" when it is Ready and free
# of the not-ready taint, "notready" otherwise.
node_states() {
  k get nodes -l type=kwok -o go-template='{{range .items}}{{$ready := false}}{{range .status.conditions}}{{if and (eq .type "Ready") (eq .status "True")}}{{$ready = true}}{{end}}{{end}}{{range .spec.taints}}{{if eq .key "node.kubernetes.io/not-ready"}}{{$ready = false}}{{end}}{{end}}{{if $ready}}{{"ready\n"}}{{else}}{{"notready\n"}}{{end}}{{end}}'
}

ready_nodes() { node_states | grep -cx ready || true; }

# nodes_ready N: exactly N simulated nodes exist and all are Ready.
nodes_ready() {
  local states
  states=$(node_states) || return 1
  [ "$(grep -c . <<<"$states")" -eq "$1" ] && [ "$(grep -cx ready <<<"$states")" -eq "$1" ]
}

elapsed() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}'; }

# delete_nodes INDEX...: deletes the nodes with these indexes, a collection of
# up to 500 per request (kubectl deletes one by one at 5 requests a second).
delete_nodes() {
  local sel
  while [ $# -gt 0 ]; do
    sel="type=kwok,local-cluster/node-index in ($(printf '%s\n' "${@:1:500}" | paste -sd, -))"
    sel=$(sed 's/%/%25/g; s/ /%20/g; s/=/%3D/g; s/,/%2C/g; s/\//%2F/g; s/(/%28/g; s/)/%29/g' <<<"$sel")
    k delete --raw "/api/v1/nodes?labelSelector=$sel" >/dev/null
    shift $(( $# < 500 ? $# : 500 ))
  done
}

scale_nodes() {
  local want=$1 start_ts have=() missing=() extra=() i chunks dir n pids=() rc=0
  [[ "$want" =~ ^[0-9]+$ ]] || die "node count must be a number, got $want"
  start_ts=$(date +%s.%N)
  mapfile -t have < <(existing_node_indexes)
  declare -A exists=()
  for i in "${have[@]}"; do
    [ -n "$i" ] || continue
    exists[$i]=1
    [ "$i" -ge "$want" ] && extra+=("$i")
  done
  for (( i=0; i<want; i++ )); do [ -n "${exists[$i]:-}" ] || missing+=("$i"); done

  if [ ${#extra[@]} -gt 0 ]; then
    log "deleting ${#extra[@]} nodes"
    delete_nodes "${extra[@]}"
    log "deleted ${#extra[@]} nodes in $(elapsed "$start_ts")s"
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    log "creating ${#missing[@]} nodes"
    # kubectl creates objects one by one and throttles itself, so several
    # processes (up to 8) share the nodes out.
    dir=$(mktemp -d "$LCP_DIR/nodes.XXXXXX")
    chunks=$(( (${#missing[@]} + 99) / 100 ))
    [ "$chunks" -le 8 ] || chunks=8
    n=0
    for i in "${missing[@]}"; do
      node_manifest "$i" >>"$dir/nodes-$(( n % chunks )).yaml"
      n=$(( n + 1 ))
    done
    for f in "$dir"/nodes-*.yaml; do
      k create -f "$f" >/dev/null &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    rm -rf "$dir"
    [ "$rc" -eq 0 ] || die "creating nodes failed"
    log "created ${#missing[@]} nodes in $(elapsed "$start_ts")s"
  fi
  if [ ${#missing[@]} -gt 0 ] || [ ${#extra[@]} -gt 0 ]; then
    # Listing thousands of nodes is not free: poll less often for many.
    WAIT_INTERVAL=$(( 1 + want / 1000 )) wait_for "$want nodes Ready" $(( 300 + want / 5 )) kwok nodes_ready "$want"
    log "$want nodes Ready in $(elapsed "$start_ts")s"
  fi
}

# ---------------------------------------------------------------------------
# CRDs and cluster-scoped configuration

# go_mod_version MODULE: the version the main module requires (or replaces it with).
go_mod_version() {
  awk -v m="$1" '
    $1 == "require" { $1 = ""; sub(/^ +/, "") }
    $1 == "replace" { $1 = ""; sub(/^ +/, "") }
    $1 == m && $2 == "=>" && NF >= 4 { rep = $4; next }
    $1 == m && $2 ~ /^v/ { req = $2 }
    END { print (rep != "" ? rep : req) }' "$root/go.mod"
}

module_dir() {
  local dir
  # Outside any module, so that neither go.mod nor go.sum is touched.
  dir=$(cd / && GOFLAGS= GOWORK=off go mod download -json "$1@$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
  [ -n "$dir" ] && [ -d "$dir" ] || die "cannot download $1@$2"
  echo "$dir"
}

# pick_crd DIR PLURAL: the generated manifest for that resource, the Default
# feature set variant (the self-managed one where there is no other).
pick_crd() {
  local d=$1 p=$2 f
  for pat in "_$p.crd.yaml" "_$p-Default.crd.yaml" "_$p-SelfManagedHA-Default.crd.yaml" "_$p-SelfManagedHA.crd.yaml"; do
    for f in "$d"/*"$pat"; do
      [ -f "$f" ] && { echo "$f"; return 0; }
    done
  done
  die "no CRD manifest for $p in $d"
}

install_crds() {
  local ver api prom files=() names=()
  ver=$(go_mod_version github.com/openshift/api)
  if [ -z "$ver" ]; then
    ver=${LCP_OPENSHIFT_API_VERSION:-$default_openshift_api_version}
    log "warning: go.mod does not require github.com/openshift/api; using $ver"
  fi
  api=$(module_dir github.com/openshift/api "$ver")
  files+=("$(pick_crd "$api/config/v1/zz_generated.crd-manifests" clusteroperators)")
  files+=("$(pick_crd "$api/config/v1/zz_generated.crd-manifests" clusterversions)")
  files+=("$(pick_crd "$api/config/v1/zz_generated.crd-manifests" infrastructures)")
  files+=("$(pick_crd "$api/config/v1/zz_generated.crd-manifests" apiservers)")
  files+=("$(pick_crd "$api/security/v1/zz_generated.crd-manifests" securitycontextconstraints)")
  names+=(clusteroperators.config.openshift.io clusterversions.config.openshift.io
          infrastructures.config.openshift.io apiservers.config.openshift.io
          securitycontextconstraints.security.openshift.io)
  if [ "$LCP_MACHINECONFIG_CRDS" != 0 ]; then
    files+=("$(pick_crd "$api/machineconfiguration/v1/zz_generated.crd-manifests" machineconfigs)")
    files+=("$(pick_crd "$api/machineconfiguration/v1/zz_generated.crd-manifests" machineconfigpools)")
    files+=("$(pick_crd "$api/machineconfiguration/v1/zz_generated.crd-manifests" machineconfignodes)")
    # MCO's operator config, where the node disruption policy lives.
    files+=("$(pick_crd "$api/operator/v1/zz_generated.crd-manifests" machineconfigurations)")
    names+=(machineconfigs.machineconfiguration.openshift.io machineconfigpools.machineconfiguration.openshift.io
            machineconfignodes.machineconfiguration.openshift.io machineconfigurations.operator.openshift.io)
  fi
  if [ "$LCP_MONITORING_CRDS" != 0 ]; then
    prom=$(module_dir github.com/prometheus-operator/prometheus-operator "$prometheus_operator_version")
    files+=("$prom/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml")
    files+=("$prom/example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml")
    names+=(servicemonitors.monitoring.coreos.com prometheusrules.monitoring.coreos.com)
  fi
  log "installing CRDs (openshift/api $ver$([ "$LCP_MONITORING_CRDS" != 0 ] && echo ", prometheus-operator $prometheus_operator_version"))"
  printf '%s\n' "${files[@]}" >"$LCP_DIR/crds.txt"
  local args=()
  for f in "${files[@]}"; do args+=(-f "$f"); done
  k apply --server-side --force-conflicts --field-manager=local-cluster "${args[@]}" >/dev/null
  k wait --for=condition=Established --timeout=120s "${names[@]/#/crd/}" >/dev/null
}

cluster_config() {
  local cluster_id
  cluster_id=$(cat /proc/sys/kernel/random/uuid)
  k apply --server-side --field-manager=local-cluster -f - >/dev/null <<EOF
apiVersion: v1
kind: Namespace
metadata:
  name: openshift-config
---
apiVersion: v1
kind: Namespace
metadata:
  name: openshift-config-managed
---
apiVersion: v1
kind: Namespace
metadata:
  name: openshift-machine-config-operator
---
apiVersion: v1
kind: Namespace
metadata:
  name: openshift-monitoring
  labels:
    openshift.io/cluster-monitoring: "true"
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: prometheus-k8s
  namespace: openshift-monitoring
---
apiVersion: config.openshift.io/v1
kind: Infrastructure
metadata:
  name: cluster
spec:
  platformSpec:
    type: $LCP_PLATFORM
---
apiVersion: config.openshift.io/v1
kind: APIServer
metadata:
  name: cluster
spec: {}
EOF
  # MCO's MachineConfiguration cluster, which MCO creates on a real cluster.
  if [ "$LCP_MACHINECONFIG_CRDS" != 0 ]; then
    k apply --server-side --field-manager=local-cluster -f - >/dev/null <<EOF
apiVersion: operator.openshift.io/v1
kind: MachineConfiguration
metadata:
  name: cluster
spec:
  managementState: Managed
EOF
  fi
  # ClusterVersion's clusterID is set once; keep it when re-applied.
  if ! k get clusterversion version >/dev/null 2>&1; then
    k create -f - >/dev/null <<EOF
apiVersion: config.openshift.io/v1
kind: ClusterVersion
metadata:
  name: version
spec:
  clusterID: $cluster_id
EOF
  fi
  k patch infrastructure cluster --subresource=status --type=merge -p "$(cat <<EOF
{"status": {
  "infrastructureName": "local-cluster",
  "platform": "$LCP_PLATFORM",
  "platformStatus": {"type": "$LCP_PLATFORM"},
  "controlPlaneTopology": "$LCP_TOPOLOGY",
  "infrastructureTopology": "$LCP_INFRA_TOPOLOGY",
  "cpuPartitioning": "None",
  "etcdDiscoveryDomain": "",
  "apiServerURL": "https://127.0.0.1:$LCP_APISERVER_PORT",
  "apiServerInternalURI": "https://127.0.0.1:$LCP_APISERVER_PORT"
}}
EOF
)" >/dev/null
}

# ---------------------------------------------------------------------------
# commands

all_up() {
  local c
  [ -f "$kubeconfig" ] || return 1
  for c in "${components[@]}"; do alive "$c" && healthy "$c" || return 1; done
}

any_running() {
  local c
  for c in "${components[@]}"; do alive "$c" && return 0; done
  [ -n "$(stray_pids)" ]
}

cmd_up() {
  local t0 c
  t0=$(date +%s)
  if all_up; then
    log "already up ($(ready_nodes) nodes Ready)"
    echo "$kubeconfig"
    return 0
  fi
  if any_running || [ -d "$LCP_DIR" ]; then
    log "found a partial cluster in $LCP_DIR; removing it and starting afresh"
    cmd_down
  fi
  ensure_packages
  ensure_tools
  for p in "$LCP_ETCD_PORT" "$LCP_ETCD_PEER_PORT" "$LCP_APISERVER_PORT" "$LCP_KCM_PORT" "$LCP_SCHEDULER_PORT" "$LCP_KWOK_PORT"; do
    port_in_use "$p" && die "port $p on this machine is in use; set the LCP_*_PORT variables to free ports"
  done
  [ ! -e "$LCP_DIR" ] || die "$LCP_DIR exists and was not made by $0; choose another LCP_DIR"
  mkdir -p "$LCP_DIR/logs" "$LCP_DIR/pids"
  touch "$LCP_DIR/.local-cluster"
  gen_pki
  write_kubeconfig "$kubeconfig" admin
  write_kubeconfig "$LCP_DIR/kube-controller-manager.kubeconfig" kube-controller-manager
  write_kubeconfig "$LCP_DIR/kube-scheduler.kubeconfig" kube-scheduler
  write_kubeconfig "$LCP_DIR/kwok.kubeconfig" kwok

  start_etcd
  start_apiserver
  start_controller_manager
  start_scheduler
  start_kwok

  install_crds
  cluster_config
  scale_nodes "$LCP_NODES"
  # Pods need the default ServiceAccount (serviceaccount controller) and
  # every namespace kube-root-ca.crt (root-ca-cert-publisher).
  wait_for "ServiceAccount default/default" 60 kube-controller-manager k get serviceaccount default -n default
  wait_for "ConfigMap default/kube-root-ca.crt" 60 kube-controller-manager k get configmap kube-root-ca.crt -n default
  log "up in $(( $(date +%s) - t0 ))s: $("$bin/kubectl" version --kubeconfig "$kubeconfig" 2>/dev/null | sed -n 's/^Server Version: //p'), $LCP_NODES nodes, platform $LCP_PLATFORM, topology $LCP_TOPOLOGY"
  log "logs in $LCP_DIR/logs; export KUBECONFIG=$kubeconfig"
  echo "$kubeconfig"
}

cmd_down() {
  stop_all
  local p left=()
  for p in "$LCP_ETCD_PORT" "$LCP_ETCD_PEER_PORT" "$LCP_APISERVER_PORT" "$LCP_KCM_PORT" "$LCP_SCHEDULER_PORT" "$LCP_KWOK_PORT"; do
    port_in_use "$p" && left+=("$p")
  done
  if [ -d "$LCP_DIR" ]; then
    # Remove only a directory this script made (or an empty one).
    if [ -f "$LCP_DIR/.local-cluster" ] || [ -z "$(ls -A "$LCP_DIR")" ]; then
      rm -rf "$LCP_DIR"
    else
      log "warning: not removing $LCP_DIR: it was not made by $0"
    fi
  fi
  [ ${#left[@]} -eq 0 ] || log "warning: ports ${left[*]} are still listening (not ours?)"
  log "down"
}

cmd_status() {
  local c pid state rc=0
  for c in "${components[@]}"; do
    pid=$(cat "$(pidfile "$c")" 2>/dev/null || true)
    if alive "$c"; then
      if healthy "$c"; then state=healthy; else state=unhealthy; rc=1; fi
    else
      state=stopped; rc=1
    fi
    printf '%-24s %-10s pid %s\n' "$c" "$state" "${pid:--}"
  done
  if [ $rc -eq 0 ]; then
    printf '%-24s %s of %s Ready\n' nodes "$(ready_nodes)" "$(existing_node_indexes | grep -c .)"
    printf '%-24s %s\n' kubeconfig "$kubeconfig"
  fi
  return $rc
}

cmd_restart_apiserver() {
  local pid
  all_up || die "the cluster is not up; run $0 up"
  pid=$(cat "$(pidfile kube-apiserver)")
  log "stopping kube-apiserver (pid $pid)"
  stop_pid "$pid"
  start_apiserver
  log "kube-apiserver restarted (pid $(cat "$(pidfile kube-apiserver)"))"
}

cmd_nodes() {
  [ $# -eq 1 ] || die "usage: $0 nodes <count>"
  all_up || die "the cluster is not up; run $0 up"
  scale_nodes "$1"
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  nodes) shift; cmd_nodes "$@" ;;
  restart-apiserver) cmd_restart_apiserver ;;
  *) echo "usage: $0 up|down|status|nodes <count>|restart-apiserver" >&2; exit 2 ;;
esac
