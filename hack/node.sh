#!/usr/bin/env bash
# A real node beside kwok's simulated ones: the kubelet (built from the
# cluster tools module) on a real CRI-O (hack/crio.sh), registered with the
# local control plane as a worker, running the pods scheduled to it
# (docs/local-control-plane.md, "The real node").
#
# usage: hack/node.sh up|down|status|metrics|restart-crio|restart-kubelet
#
#   up      load the operator's images into CRI-O's storage, start CRI-O and
#           the kubelet in the node's network and mount namespaces, wait for
#           the Node to be Ready and label it a worker.
#   down    stop every process of the node (containers included), delete
#           their runc state and the network namespace, delete the Node.
#   status  exit 0 if the kubelet runs.
#   metrics curl CRI-O's metrics through the crio-metrics pod's kube-rbac-proxy
#           at the node's address, port 9638, with a token of
#           openshift-monitoring/prometheus-k8s (allowed get /metrics) and the
#           operator's CA bundle; without the token it answers 401.
#   restart-crio     what `systemctl restart crio.service` does on a node:
#           the kubelet stops (MCO's kubelet.service Requires=crio.service),
#           CRI-O restarts with its drop-ins read again, then the kubelet
#           starts. CRI-O's state and the containers' conmon processes are
#           left alone, as systemd leaves them (hack/crio.sh stop would not).
#   restart-kubelet  what `systemctl restart kubelet.service` does: the
#           kubelet restarts, reading its --config-dir again.
#   Both wait until the restarted programs answer (CRI-O's socket, the
#   kubelet's healthz) and fail, with the log's last lines, when one exits.
#
# Node files as MCO's daemon writes them (framework.RealNode.HostPath):
# CRI-O's drop-ins in $NODE_DIR/crio/crio.conf.d (/etc/crio/crio.conf.d on a
# node), the kubelet's in $NODE_DIR/kubelet.conf.d (its --config-dir,
# /etc/openshift/kubelet.conf.d on a node).
#
# The node has a network namespace of its own (the kubelet refuses a
# loopback node IP), joined to this machine's by a veth pair with a /30 of
# 10.254.0.0/16 used only by that pair; it has no other route. Inside it,
# the API server is reached at 10.96.0.1:443 (the `kubernetes` Service's
# ClusterIP, in the API server's certificate) through socat and a unix
# socket, for the kubelet and for the pods' in-cluster clients alike. The
# mount namespace binds $NODE_DIR/host/var/lib/crio-metrics over
# /var/lib/crio-metrics, so hostPath volumes of that path and CRI-O's
# metrics drop-in see the node's directory, not this machine's; likewise
# /etc/kubernetes (the static pod directory, kubelet-ca.crt) and
# /var/lib/kubelet (the kubelet's kubeconfig and pairs as an OpenShift node
# keeps them), which MCO's kube-rbac-proxy-crio static pod mounts.
#
# environment:
#   LCP_DIR                the control plane (default _output/local-cluster)
#   NODE_DIR               the node's state and logs (default $LCP_DIR-node):
#                          kubelet.log, crio/crio.log, images/
#   NODE_NAME              the Node's name (default real-worker-0)
#   OPERATOR_IMAGE         the name the operator image is loaded as (with
#                          cert-syncer); the operator must be told the same
#   KUBE_RBAC_PROXY_IMAGE  the name kube-rbac-proxy's image is loaded as
#   NODE_READY_TIMEOUT     seconds to wait for the Node's Ready (default 120)
#   NODE_CRIO_METRICS      how CRI-O's metrics endpoint is configured:
#                          operator (default) TLS with the pair cert-syncer
#                          writes, as the operator's drop-in does; drop-ins
#                          as the drop-ins already in $NODE_DIR/crio/crio.conf.d
#                          say (MCO's 00-default: plain HTTP on 127.0.0.1:9537)
#   CNI_PLUGINS            where the CNI loopback plugin is (default /usr/lib/cni)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
LCP_DIR=$(realpath -m "${LCP_DIR:-$root/_output/local-cluster}")
NODE_DIR=$(realpath -m "${NODE_DIR:-$LCP_DIR-node}")
NODE_NAME=${NODE_NAME:-real-worker-0}
OPERATOR_IMAGE=${OPERATOR_IMAGE:-quay.io/openshift/origin-cluster-node-operator:local}
KUBE_RBAC_PROXY_IMAGE=${KUBE_RBAC_PROXY_IMAGE:-quay.io/openshift/origin-kube-rbac-proxy:local}
NODE_READY_TIMEOUT=${NODE_READY_TIMEOUT:-120}
NODE_CRIO_METRICS=${NODE_CRIO_METRICS:-operator}

bin=$root/_output/bin
crio_dir=$NODE_DIR/crio
pki=$LCP_DIR/kwok/clusters/local-cluster/pki
export KUBECONFIG=$LCP_DIR/admin.kubeconfig

# One network namespace and /30 per NODE_DIR, so that make run's node and a
# test's may coexist.
hash=$(printf %s "$NODE_DIR" | sha256sum | cut -c1-6)
netns=cno-node-$hash
veth_host=cnoh$hash
veth_node=cnon$hash
octet=$((0x${hash:0:2}))
host_ip=10.254.$octet.1
node_ip=10.254.$octet.2
service_ip=10.96.0.1
cni_plugins=${CNI_PLUGINS:-/usr/lib/cni}
pause_image=localhost/real-node/pause:local

log() { echo "node.sh [$NODE_NAME]: $*" >&2; }
die() { log "$*"; exit 1; }

in_node() { nsenter --net="/run/netns/$netns" "$@"; }

kubelet_pid() {
  local pid
  pid=$(cat "$NODE_DIR/kubelet.pid" 2>/dev/null) || return 1
  [ -d "/proc/$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "--root-dir=$NODE_DIR/kubelet" || return 1
  echo "$pid"
}

preflight() {
  [ "$(id -u)" -eq 0 ] || die "the real node needs root (network and mount namespaces, CRI-O, runc); run as root: sudo make run"
  local b
  for b in kubelet kube-rbac-proxy kubectl; do
    [ -x "$bin/$b" ] || "$root/hack/build-tools.sh" cluster >&2
  done
  [ -x "$bin/crio" ] || "$root/hack/build-tools.sh" crio >&2
  # The Debian packages it misses, installed as hack/tools/crio/build.sh does.
  local -a missing=()
  for p in socat skopeo containernetworking-plugins; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq -o DPkg::Lock::Timeout=300
    apt-get install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null
  fi
  for b in socat skopeo conmon runc nsenter unshare ip openssl gcc; do
    command -v "$b" >/dev/null || die "$b not found (apt-get install socat skopeo conmon runc iproute2 util-linux openssl gcc)"
  done
  [ -x "$cni_plugins/loopback" ] || die "no CNI loopback plugin in $cni_plugins (apt-get install containernetworking-plugins, or set CNI_PLUGINS)"
  [ -f "$KUBECONFIG" ] || die "no control plane at $LCP_DIR: run hack/local-cluster.sh up first"
}

# image NAME REF ENTRYPOINT FILE...: an OCI image of static binaries under
# /usr/bin, loaded into CRI-O's storage as REF.
image() {
  local name=$1 ref=$2 entry=$3; shift 3
  local dir=$NODE_DIR/images/$name rootfs
  rm -rf "$dir"
  rootfs=$dir/rootfs
  mkdir -p "$rootfs/usr/bin" "$rootfs/tmp" "$dir/oci/blobs/sha256"
  install -m 0755 "$@" "$rootfs/usr/bin/"
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$rootfs" -cf "$dir/layer.tar" usr tmp
  local layer size config csize manifest msize
  layer=$(sha256sum "$dir/layer.tar" | cut -d' ' -f1)
  size=$(stat -c %s "$dir/layer.tar")
  mv "$dir/layer.tar" "$dir/oci/blobs/sha256/$layer"
  printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":["%s"],"User":"0"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$entry" "$layer" >"$dir/config.json"
  config=$(sha256sum "$dir/config.json" | cut -d' ' -f1)
  csize=$(stat -c %s "$dir/config.json")
  mv "$dir/config.json" "$dir/oci/blobs/sha256/$config"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
    "$config" "$csize" "$layer" "$size" >"$dir/manifest.json"
  manifest=$(sha256sum "$dir/manifest.json" | cut -d' ' -f1)
  msize=$(stat -c %s "$dir/manifest.json")
  mv "$dir/manifest.json" "$dir/oci/blobs/sha256/$manifest"
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"org.opencontainers.image.ref.name":"node"}}]}' \
    "$manifest" "$msize" >"$dir/oci/index.json"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$dir/oci/oci-layout"
  mkdir -p "$crio_dir/storage" "$crio_dir/run/storage"
  skopeo --insecure-policy copy --quiet "oci:$dir/oci:node" \
    "containers-storage:[vfs@$crio_dir/storage+$crio_dir/run/storage]$ref" >&2
  rm -rf "$rootfs"
  log "loaded $ref"
}

images() {
  # cert-syncer as the operator image's build makes it: static, so that an
  # image of nothing but the binaries runs.
  mkdir -p "$NODE_DIR/images/bin"
  (cd "$root" && CGO_ENABLED=0 go build -mod=vendor -trimpath -o "$NODE_DIR/images/bin/cert-syncer" ./cmd/cert-syncer)
  # Every sandbox needs the pause image, even where CRI-O drops the infra
  # container (drop_infra_ctr, as for our host-network pods): a static pause
  # of our own, named in a drop-in.
  printf '%s\n' '#include <signal.h>' '#include <unistd.h>' 'static void stop(int s) { _exit(0); }' \
    'int main(void) { signal(SIGTERM, stop); signal(SIGINT, stop); for (;;) pause(); }' >"$NODE_DIR/images/bin/pause.c"
  gcc -static -Os -o "$NODE_DIR/images/bin/pause" "$NODE_DIR/images/bin/pause.c"
  image pause "$pause_image" /usr/bin/pause "$NODE_DIR/images/bin/pause"
  mkdir -p "$crio_dir/crio.conf.d"
  printf '[crio.image]\npause_image = "%s"\npause_command = "/usr/bin/pause"\n' "$pause_image" >"$crio_dir/crio.conf.d/20-node.conf"
  image operator "$OPERATOR_IMAGE" /usr/bin/cert-syncer "$NODE_DIR/images/bin/cert-syncer"
  image kube-rbac-proxy "$KUBE_RBAC_PROXY_IMAGE" /usr/bin/kube-rbac-proxy "$(realpath "$bin/kube-rbac-proxy")"
}

network() {
  ip netns add "$netns"
  echo "$netns" >"$NODE_DIR/netns"
  echo "$host_ip" >"$NODE_DIR/host-ip"
  ip link add "$veth_host" type veth peer name "$veth_node"
  ip link set "$veth_node" netns "$netns"
  ip addr add "$host_ip/30" dev "$veth_host"
  ip link set "$veth_host" up
  in_node ip link set lo up
  in_node ip addr add "$node_ip/30" dev "$veth_node"
  in_node ip link set "$veth_node" up
  in_node ip addr add "$service_ip/32" dev lo
}

# The node's client certificate (system:node:NAME in system:nodes, what the
# Node authorizer and NodeRestriction expect), signed by the cluster's CA.
credentials() {
  local d=$NODE_DIR/pki
  mkdir -p "$d"
  (umask 077; openssl ecparam -name prime256v1 -genkey -noout -out "$d/node.key")
  openssl req -new -key "$d/node.key" -subj "/O=system:nodes/CN=system:node:$NODE_NAME" -out "$d/node.csr" 2>/dev/null
  printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" "extendedKeyUsage=clientAuth" >"$d/ext"
  openssl x509 -req -in "$d/node.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 30 -sha256 \
    -extfile "$d/ext" -out "$d/node.crt" 2>/dev/null
  cat >"$NODE_DIR/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: local, cluster: {server: "https://$service_ip:443", certificate-authority: "$pki/ca.crt"}}]
users: [{name: node, user: {client-certificate: "$d/node.crt", client-key: "$d/node.key"}}]
contexts: [{name: node, context: {cluster: local, user: node}}]
current-context: node
EOF
  openshift_kubelet_files
}

# openshift_kubelet_files: the kubelet's files where an OpenShift node keeps
# them (in the node's mount namespace): /var/lib/kubelet/kubeconfig with the
# client pair kubelet-client-current.pem, the serving pair
# kubelet-server-current.pem (signed here by the cluster's CA: no CSR
# approver runs) and the client CA bundle /etc/kubernetes/kubelet-ca.crt.
# MCO's kube-rbac-proxy-crio static pod mounts them.
openshift_kubelet_files() {
  local d=$NODE_DIR/pki kpki=$NODE_DIR/host/var/lib/kubelet/pki dated
  mkdir -p "$kpki" "$NODE_DIR/host/etc/kubernetes/manifests"
  cp "$pki/ca.crt" "$NODE_DIR/host/etc/kubernetes/kubelet-ca.crt"
  (umask 077; cat "$d/node.crt" "$d/node.key" >"$kpki/kubelet-client-current.pem")
  (umask 077; openssl ecparam -name prime256v1 -genkey -noout -out "$d/serving.key")
  openssl req -new -key "$d/serving.key" -subj "/O=system:nodes/CN=system:node:$NODE_NAME" -out "$d/serving.csr" 2>/dev/null
  printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" \
    "subjectAltName=DNS:$NODE_NAME,IP:$node_ip" >"$d/serving.ext"
  openssl x509 -req -in "$d/serving.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 30 -sha256 \
    -extfile "$d/serving.ext" -out "$d/serving.crt" 2>/dev/null
  dated=kubelet-server-$(date -u +%Y-%m-%d-%H-%M-%S).pem
  rm -f "$kpki"/kubelet-server-*.pem
  (umask 077; cat "$d/serving.crt" "$d/serving.key" >"$kpki/$dated")
  ln -sfn "$dated" "$kpki/kubelet-server-current.pem"
  cat >"$NODE_DIR/host/var/lib/kubelet/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: local, cluster: {server: "https://$service_ip:443", certificate-authority-data: "$(base64 -w0 "$pki/ca.crt")"}}]
users: [{name: kubelet, user: {client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem, client-key: /var/lib/kubelet/pki/kubelet-client-current.pem}}]
contexts: [{name: kubelet, context: {cluster: local, user: kubelet}}]
current-context: kubelet
EOF
}

kubelet_config() {
  # A new node: no pod logs of an earlier one (the kubelet counts a static
  # pod's restarts from them, and a static pod's UID is the same every boot).
  rm -rf "$NODE_DIR/pods-logs"
  mkdir -p "$NODE_DIR/pods-logs" "$NODE_DIR/kubelet.conf.d"
  # cgroup v1 with the cgroupfs driver and no QoS hierarchy (this machine
  # runs no systemd); no eviction and no image garbage collection: the
  # images were loaded here and cannot be pulled again. Enforcement "none",
  # not []: with --config-dir the kubelet (v1.36.2, mergeKubeletConfigurations)
  # re-defaults the merged configuration, and an empty list becomes ["pods"].
  cat >"$NODE_DIR/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupsPerQOS: false
enforceNodeAllocatable: ["none"]
failSwapOn: false
address: $node_ip
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
staticPodPath: $NODE_DIR/host/etc/kubernetes/manifests
tlsCertFile: $NODE_DIR/host/var/lib/kubelet/pki/kubelet-server-current.pem
tlsPrivateKeyFile: $NODE_DIR/host/var/lib/kubelet/pki/kubelet-server-current.pem
podLogsDir: $NODE_DIR/pods-logs
containerRuntimeEndpoint: unix://$crio_dir/crio.sock
resolvConf: ""
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $NODE_DIR/host/etc/kubernetes/kubelet-ca.crt}
authorization: {mode: Webhook}
evictionHard: {memory.available: "0%", nodefs.available: "0%", nodefs.inodesFree: "0%", imagefs.available: "0%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
EOF
}

# runc_bin: runc, or where this machine withholds CAP_SYS_RESOURCE (as some
# containers do) a wrapper of it that raises a negative oomScoreAdj to 0:
# the kubelet gives node-critical pods -997, which only that capability may
# set, and runc fails the container otherwise.
runc_bin() {
  local real
  real=$(command -v runc)
  if sh -c 'echo -1 >/proc/self/oom_score_adj' 2>/dev/null; then
    echo "$real"
    return
  fi
  mkdir -p "$NODE_DIR/bin"
  cat >"$NODE_DIR/bin/runc" <<EOF
#!/bin/sh
# Written by hack/node.sh: this machine cannot lower oom_score_adj.
prev=
for a in "\$@"; do
  if [ "\$prev" = --bundle ] || [ "\$prev" = -b ]; then
    sed -i -E 's/"oomScoreAdj": ?-[0-9]+/"oomScoreAdj":0/' "\$a/config.json"
  fi
  prev=\$a
done
exec $real "\$@"
EOF
  chmod 0755 "$NODE_DIR/bin/runc"
  echo "$NODE_DIR/bin/runc"
}

# inner: runs inside the node's network namespace, in a mount namespace of
# its own that CRI-O, the kubelet and their containers share.
inner() {
  # runc sets a hugetlb limit on every container: a cgroup v1 hugetlb
  # hierarchy must be mounted (this machine's is on cgroup2 only).
  if ! grep -q ' /sys/fs/cgroup/hugetlb ' /proc/self/mountinfo; then
    mkdir -p /sys/fs/cgroup/hugetlb
    mount -t cgroup -o hugetlb cgroup /sys/fs/cgroup/hugetlb
  fi
  local d
  for d in /var/lib/crio-metrics /etc/kubernetes /var/lib/kubelet; do
    mkdir -p "$NODE_DIR/host$d" "$d"
    mount --bind "$NODE_DIR/host$d" "$d"
  done
  # A network for the runtime to report ready (the node's Ready needs it):
  # loopback only. Our pods use the host's network (the node's namespace);
  # a pod of the pod network would have nothing but lo.
  mkdir -p "$crio_dir/cni/net.d" "$crio_dir/cni/bin"
  ln -sf "$cni_plugins/loopback" "$crio_dir/cni/bin/loopback"
  echo '{"cniVersion": "1.0.0", "name": "node-loopback", "plugins": [{"type": "loopback"}]}' \
    >"$crio_dir/cni/net.d/10-loopback.conflist"
  setsid socat "TCP-LISTEN:443,bind=$service_ip,fork,reuseaddr" "UNIX-CONNECT:$NODE_DIR/apiserver.sock" \
    </dev/null >>"$NODE_DIR/socat-node.log" 2>&1 &
  # CRI-O's metrics as the operator's drop-in sets them on a node: TLS with
  # the pair cert-syncer writes, on loopback port 9537 (a pair of hack/crio.sh's
  # until cert-syncer replaces it); or as the node's drop-ins say.
  local tls=1
  [ "$NODE_CRIO_METRICS" != drop-ins ] || tls=0
  RUNC_BIN=$(runc_bin) CRIO_DIR=$crio_dir CRIO_METRICS_HOST=127.0.0.1 CRIO_METRICS_PORT=9537 CRIO_METRICS_TLS=$tls \
    CRIO_METRICS_CERT=/var/lib/crio-metrics/tls.crt CRIO_METRICS_KEY=/var/lib/crio-metrics/tls.key \
    "$root/hack/crio.sh" start
  (
    cd /
    exec setsid "$bin/kubelet" --config="$NODE_DIR/kubelet.yaml" --config-dir="$NODE_DIR/kubelet.conf.d" --kubeconfig="$NODE_DIR/kubeconfig" \
      --root-dir="$NODE_DIR/kubelet" --cert-dir="$NODE_DIR/kubelet/pki" --hostname-override="$NODE_NAME" \
      --node-ip="$node_ip" --v=2 </dev/null >>"$NODE_DIR/kubelet.log" 2>&1
  ) &
  echo $! >"$NODE_DIR/kubelet.pid"
}

up() {
  preflight
  if kubelet_pid >/dev/null; then log "already up"; return; fi
  down_quiet
  mkdir -p "$NODE_DIR"
  local server port
  server=$("$bin/kubectl" config view --minify -o jsonpath='{.clusters[0].cluster.server}')
  port=${server##*:}
  images
  network
  credentials
  kubelet_config
  setsid socat "UNIX-LISTEN:$NODE_DIR/apiserver.sock,fork,unlink-early" "TCP:127.0.0.1:$port" \
    </dev/null >>"$NODE_DIR/socat-host.log" 2>&1 &
  echo $! >"$NODE_DIR/socat.pid"
  in_node unshare --mount --propagation slave env NODE_DIR="$NODE_DIR" LCP_DIR="$LCP_DIR" NODE_NAME="$NODE_NAME" \
    NODE_CRIO_METRICS="$NODE_CRIO_METRICS" \
    "$0" inner
  log "kubelet started (log $NODE_DIR/kubelet.log), waiting for the Node to be Ready"
  local deadline=$((SECONDS + NODE_READY_TIMEOUT))
  until [ "$("$bin/kubectl" get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]; do
    kubelet_pid >/dev/null || { tail -n 20 "$NODE_DIR/kubelet.log" >&2; die "the kubelet exited (log $NODE_DIR/kubelet.log)"; }
    [ $SECONDS -lt $deadline ] || { tail -n 20 "$NODE_DIR/kubelet.log" >&2; die "Node $NODE_NAME not Ready after ${NODE_READY_TIMEOUT}s"; }
    sleep 1
  done
  # (the kubelet may not set node-role labels itself)
  "$bin/kubectl" label node "$NODE_NAME" --overwrite node-role.kubernetes.io/worker= >/dev/null
  log "Node $NODE_NAME Ready at $node_ip (netns $netns), a worker"
}

down_quiet() {
  local pids p ids=
  [ ! -d "$crio_dir/run/runc" ] || ids=$(runc --root "$crio_dir/run/runc" list -q 2>/dev/null || true)
  # (pod sandboxes without an infra container have no runc state, only storage)
  ids+=" $(ls "$crio_dir/storage/vfs-containers" 2>/dev/null | grep -E '^[0-9a-f]{64}$' || true)"
  if [ -e "/run/netns/$netns" ]; then
    # Every process of the node is in its network namespace: the kubelet,
    # CRI-O, conmon, the containers (host-network) and socat.
    for sig in TERM KILL; do
      pids=$(ip netns pids "$netns" || true)
      [ -n "$pids" ] || break
      # shellcheck disable=SC2086
      kill -$sig $pids 2>/dev/null || true
      for _ in $(seq 50); do [ -n "$(ip netns pids "$netns")" ] || break; sleep 0.2; done
    done
  fi
  if [ -d "$crio_dir/run/runc" ]; then
    for p in $(runc --root "$crio_dir/run/runc" list -q 2>/dev/null); do
      runc --root "$crio_dir/run/runc" delete --force "$p" >/dev/null 2>&1 || true
    done
  fi
  # The cgroups CRI-O made for the sandboxes, containers and their conmon
  # (cgroupfs), empty by now.
  for p in $ids; do
    rmdir /sys/fs/cgroup/*/"crio-$p" /sys/fs/cgroup/*/"crio-conmon-$p" 2>/dev/null || true
  done
  [ ! -d "$crio_dir" ] || CRIO_DIR=$crio_dir "$root/hack/crio.sh" stop >/dev/null 2>&1 || true
  if p=$(cat "$NODE_DIR/socat.pid" 2>/dev/null) && [ -d "/proc/$p" ] && grep -qF "$NODE_DIR/apiserver.sock" "/proc/$p/cmdline"; then
    kill "$p" 2>/dev/null || true
  fi
  [ ! -e "/run/netns/$netns" ] || ip netns del "$netns"
  ip link del "$veth_host" 2>/dev/null || true
  rm -f "$NODE_DIR/kubelet.pid" "$NODE_DIR/socat.pid" "$NODE_DIR/apiserver.sock" "$NODE_DIR/netns" "$NODE_DIR/host-ip"
}

down() {
  [ "$(id -u)" -eq 0 ] || die "must run as root"
  down_quiet
  # The next node starts from its own files: drop-ins an MCO daemon
  # (framework.RealNode.HostPath) wrote on this one go with it.
  rm -rf "$crio_dir/crio.conf.d" "$NODE_DIR/kubelet.conf.d"
  if [ -f "$KUBECONFIG" ]; then "$bin/kubectl" delete node "$NODE_NAME" --ignore-not-found --wait=false >/dev/null 2>&1 || true; fi
  log "down"
}

metrics() {
  local ns dir
  ns=$("$bin/kubectl" get daemonset -A --field-selector metadata.name=crio-metrics -o jsonpath='{.items[0].metadata.namespace}')
  [ -n "$ns" ] || die "no crio-metrics DaemonSet (yet)"
  dir=$(mktemp -d)
  "$bin/kubectl" get configmap -n "$ns" crio-metrics-ca-bundle -o jsonpath='{.data.ca-bundle\.crt}' >"$dir/ca.crt"
  curl -sS --fail-with-body --cacert "$dir/ca.crt" --resolve "crio-metrics.$ns.svc:9638:$node_ip" \
    -H "Authorization: Bearer $("$bin/kubectl" create token -n openshift-monitoring prometheus-k8s)" \
    "https://crio-metrics.$ns.svc:9638/metrics"
  rm -rf "$dir"
}

# stop_program PID: SIGTERM, as systemd stops a unit, SIGKILL after 30 s.
stop_program() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 150); do [ -d "/proc/$pid" ] || return 0; sleep 0.2; done
  kill -KILL "$pid" 2>/dev/null || true
  while [ -d "/proc/$pid" ]; do sleep 0.1; done
}

# start_program PIDFILE LOG ARGV ENV: starts a program again as it ran
# before (its arguments and environment, NUL-separated files), detached.
start_program() {
  local -a argv env
  mapfile -d '' -t argv <"$3"
  mapfile -d '' -t env <"$4"
  (
    cd /
    exec setsid env -i "${env[@]}" "${argv[@]}" </dev/null >>"$2" 2>&1
  ) &
  echo $! >"$1"
}

# wait_answering NAME PIDFILE LOG CHECK...: until CHECK succeeds, or fail
# when the program exits or 60 s pass.
wait_answering() {
  local name=$1 pidfile=$2 logf=$3 deadline=$((SECONDS + 60))
  shift 3
  until "$@" >/dev/null 2>&1; do
    if [ ! -d "/proc/$(cat "$pidfile")" ] || [ $SECONDS -ge $deadline ]; then
      grep -v 'Current CRI-O configuration' "$logf" | tail -n 20 >&2
      die "$name did not come back (log $logf)"
    fi
    sleep 0.2
  done
}

crio_answers() { curl -sS --max-time 2 --unix-socket "$crio_dir/crio.sock" http://localhost/info | grep -q storage_driver; }
kubelet_answers() { [ "$(curl -sS --max-time 2 http://127.0.0.1:10248/healthz)" = ok ]; }

# restart_inner UNIT: runs in the node's mount and network namespaces.
restart_inner() {
  local kpid cpid d
  kpid=$(kubelet_pid) || die "the kubelet is not running"
  d=$(mktemp -d)
  cp "/proc/$kpid/cmdline" "$d/kubelet.argv"
  cp "/proc/$kpid/environ" "$d/kubelet.env"
  stop_program "$kpid"
  if [ "$1" = crio ]; then
    cpid=$(cat "$crio_dir/crio.pid")
    [ -d "/proc/$cpid" ] || die "CRI-O is not running"
    cp "/proc/$cpid/cmdline" "$d/crio.argv"
    cp "/proc/$cpid/environ" "$d/crio.env"
    stop_program "$cpid"
    echo "=== $(date -u +%FT%TZ) restart" >>"$crio_dir/crio.log"
    start_program "$crio_dir/crio.pid" "$crio_dir/crio.log" "$d/crio.argv" "$d/crio.env"
    wait_answering CRI-O "$crio_dir/crio.pid" "$crio_dir/crio.log" crio_answers
  fi
  start_program "$NODE_DIR/kubelet.pid" "$NODE_DIR/kubelet.log" "$d/kubelet.argv" "$d/kubelet.env"
  wait_answering kubelet "$NODE_DIR/kubelet.pid" "$NODE_DIR/kubelet.log" kubelet_answers
  rm -rf "$d"
  log "restarted ${1}"
}

restart() {
  [ "$(id -u)" -eq 0 ] || die "must run as root"
  local pid
  pid=$(kubelet_pid) || die "the kubelet is not running"
  nsenter --target "$pid" --mount --net env NODE_DIR="$NODE_DIR" LCP_DIR="$LCP_DIR" NODE_NAME="$NODE_NAME" "$root/hack/node.sh" "restart-inner-$1"
}

case "${1:-}" in
  up) up ;;
  restart-crio) restart crio ;;
  restart-kubelet) restart kubelet ;;
  restart-inner-crio) restart_inner crio ;;
  restart-inner-kubelet) restart_inner kubelet ;;
  down) down ;;
  inner) inner ;;
  metrics) metrics ;;
  status) if pid=$(kubelet_pid); then echo "running (kubelet pid $pid, node IP $node_ip)"; else echo "not running"; exit 1; fi ;;
  *) echo "usage: $0 up|down|status|metrics|restart-crio|restart-kubelet" >&2; exit 2 ;;
esac
