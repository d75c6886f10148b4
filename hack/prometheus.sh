#!/usr/bin/env bash
# Installs Prometheus and promtool from Debian's "prometheus" package (2.42 on
# Debian 12) when missing, without starting the distribution's service, and
# prints their versions. Tests run Prometheus themselves, with a configuration
# of their own, on loopback only.
#
# usage: hack/prometheus.sh
#
# Running it for a test (nothing of the distribution's setup is used: not
# /etc/prometheus, not /var/lib/prometheus, not the service):
#
#   dir=_output/prometheus            # everything under _output/
#   mkdir -p "$dir/data"
#   cat >"$dir/prometheus.yml" <<'EOF'
#   global:
#     scrape_interval: 2s
#     scrape_timeout: 1s
#   scrape_configs:
#     - job_name: crio
#       scheme: https
#       authorization:
#         credentials_file: /path/to/serviceaccount/token   # bearer token
#       tls_config:
#         ca_file: /path/to/crio-metrics-ca-bundle.crt      # CA bundle
#         server_name: localhost                            # a SAN of the cert
#       static_configs:
#         - targets: ["127.0.0.1:9638"]                     # kube-rbac-proxy
#   EOF
#   prometheus \
#     --config.file="$dir/prometheus.yml" \
#     --storage.tsdb.path="$dir/data" \
#     --web.listen-address=127.0.0.1:9090 \
#     --web.enable-lifecycle \
#     --log.level=info >"$dir/prometheus.log" 2>&1 &
#
#   # scrape health through the HTTP API (loopback only):
#   curl -s 'http://127.0.0.1:9090/api/v1/query?query=up'
#   curl -s 'http://127.0.0.1:9090/api/v1/targets'
#   # reload after changing the config:  curl -X POST http://127.0.0.1:9090/-/reload
#
#   Counting failed scrapes over a window, e.g. while certificates rotate:
#   count_over_time(up{job="crio"}[5m]) and sum_over_time(up{job="crio"}[5m]).
#
# Linting PrometheusRule expressions: extract spec.groups of a PrometheusRule
# into a plain rule file ({groups: [...]}) and run
#   promtool check rules rules.yaml
# and unit-test them with `promtool test rules tests.yaml`.
set -euo pipefail

if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
  echo "prometheus.sh: installing Debian package prometheus" >&2
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  # Keep the package's maintainer scripts from starting its service:
  # policy-rc.d exit status 101 means "action forbidden" to invoke-rc.d.
  policy=/usr/sbin/policy-rc.d
  created_policy=
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
    "${sudo[@]}" chmod 0755 "$policy"
    created_policy=1
  fi
  cleanup() { [ -z "$created_policy" ] || "${sudo[@]}" rm -f "$policy"; }
  trap cleanup EXIT
  export DEBIAN_FRONTEND=noninteractive
  # Only refresh the package lists when apt knows no candidate for it.
  if ! apt-cache policy prometheus 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    "${sudo[@]}" apt-get update -qq
  fi
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 prometheus >/dev/null
fi

prometheus --version 2>&1 | head -1
promtool --version 2>&1 | head -1
