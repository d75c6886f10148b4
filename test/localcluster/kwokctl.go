package localcluster

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/template"
	"time"
)

// components are the processes kwokctl runs, by kwokctl's names; each has
// $clusterDir/pids/NAME.pid and $LCP_DIR/logs/NAME.log.
var components = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok-controller"}

// kwokctlConfig is kwokctl's configuration (docs/local-control-plane.md).
var kwokctlConfig = template.Must(template.New("kwokctl").Parse(`apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokctlConfiguration
options:
  runtime: binary
  bindAddress: 127.0.0.1
  securePort: true
  kubeAuthorization: true
  kubeAdmission: true
  quietPull: true
  cacheDir: {{.C.Dir}}/kwok/cache
  etcdPort: {{.C.EtcdPort}}
  etcdPeerPort: {{.C.EtcdPeerPort}}
  kubeApiserverPort: {{.C.APIServerPort}}
  kubeControllerManagerPort: {{.C.KCMPort}}
  kubeSchedulerPort: {{.C.SchedulerPort}}
  kwokControllerPort: {{.C.KwokPort}}
  kubeApiserverCertSANs: [10.96.0.1]
  kubeSchedulerConfig: {{.C.Dir}}/kube-scheduler.yaml
{{- if .C.Audit}}
  kubeAuditPolicy: {{.C.Dir}}/audit-policy.yaml
{{- end}}
  nodeLeaseDurationSeconds: 300
  heartbeatFactor: 1
  kubeControllerManagerNodeMonitorGracePeriodMilliseconds: 310000
  kubectlBinary: {{.Bin}}/kubectl
  etcdctlBinary: {{.Bin}}/etcdctl
  etcdutlBinary: {{.Bin}}/etcdutl
  kectlBinary: {{.Bin}}/kectl
  prometheusBinary: {{.Bin}}/prometheus
  metricsServerBinary: {{.Bin}}/metrics-server
  jaegerBinary: {{.Bin}}/jaeger
componentsPatches:
- name: etcd
  extraArgs:
  - {key: unsafe-no-fsync, value: "true"}
  - {key: log-level, value: warn}
- name: kube-apiserver
  extraArgs:
  - {key: advertise-address, value: 127.0.0.1}
  - {key: endpoint-reconciler-type, value: none}
  - {key: kubelet-preferred-address-types, value: InternalIP}
  - {key: kubelet-client-certificate, value: {{.PKI}}/admin.crt}
  - {key: kubelet-client-key, value: {{.PKI}}/admin.key}
  - {key: requestheader-client-ca-file, value: {{.PKI}}/ca.crt}
  - {key: requestheader-allowed-names, value: kwok-admin}
  - {key: requestheader-username-headers, value: X-Remote-User}
  - {key: requestheader-group-headers, value: X-Remote-Group}
  - {key: requestheader-extra-headers-prefix, value: X-Remote-Extra-}
  - {key: enable-admission-plugins, value: NodeRestriction}
  - {key: service-cluster-ip-range, value: 10.96.0.0/16}
  - {key: service-account-issuer, value: "https://kubernetes.default.svc", override: true}
{{- if .C.Audit}}
  - {key: audit-log-maxsize, value: "100000"}
  - {key: audit-log-maxbackup, value: "1"}
{{- end}}
  - {key: profiling, value: "false"}
  - {key: v, value: "1"}
- name: kube-controller-manager
  extraArgs:
  - {key: tls-cert-file, value: {{.PKI}}/admin.crt}
  - {key: tls-private-key-file, value: {{.PKI}}/admin.key}
  - {key: client-ca-file, value: {{.PKI}}/ca.crt}
  - {key: controllers, value: "*"}
  - {key: use-service-account-credentials, value: "true"}
  - {key: cluster-signing-cert-file, value: {{.PKI}}/ca.crt}
  - {key: cluster-signing-key-file, value: {{.PKI}}/ca.key}
  - {key: service-cluster-ip-range, value: 10.96.0.0/16}
  - {key: node-startup-grace-period, value: 310000ms}
  - {key: kube-api-qps, value: "200"}
  - {key: kube-api-burst, value: "400"}
  - {key: leader-elect, value: "false"}
  - {key: profiling, value: "false"}
  - {key: v, value: "1"}
- name: kube-scheduler
  extraArgs:
  - {key: tls-cert-file, value: {{.PKI}}/admin.crt}
  - {key: tls-private-key-file, value: {{.PKI}}/admin.key}
  - {key: client-ca-file, value: {{.PKI}}/ca.crt}
  - {key: profiling, value: "false"}
  - {key: v, value: "1"}
- name: kwok-controller
  extraArgs:
  - {key: manage-all-nodes, value: "false", override: true}
  - {key: manage-nodes-with-annotation-selector, value: kwok.x-k8s.io/node=fake}
  - {key: cidr, value: 10.128.0.0/14}
  - {key: v, value: WARN}
---
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  nodePlayStageParallelism: 16
  podPlayStageParallelism: 16
  nodeLeaseParallelism: 16
`))

const schedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {qps: 200, burst: 400}
leaderElection: {leaderElect: false}
`

const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules: [{level: Metadata}]
`

// writeFiles writes the marker, kwokctl's configuration and the files it names.
func (c *Config) writeFiles() error {
	var buf bytes.Buffer
	err := kwokctlConfig.Execute(&buf, map[string]any{"C": c, "PKI": filepath.Join(c.clusterDir(), "pki"), "Bin": filepath.Dir(c.bin("x"))})
	if err != nil {
		return err
	}
	files := map[string]string{marker: "", "kwokctl.yaml": buf.String(), "kube-scheduler.yaml": schedulerConfig, "audit-policy.yaml": auditPolicy}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(c.Dir, name), []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// kwokctl runs kwokctl on this cluster; its log goes to stderr.
func (c *Config) kwokctl(args ...string) error {
	args = append([]string{"--name=" + clusterName, "-v=WARN"}, args...)
	cmd := exec.Command(c.bin("kwokctl"), args...)
	// KWOK_WORKDIR keeps kwokctl and kwok from ~/.kwok. kwokctl's readiness
	// check runs the first kubectl on PATH: ours comes first, never the host's.
	cmd.Env = append(os.Environ(), "KWOK_WORKDIR="+c.kwokDir(),
		"PATH="+filepath.Dir(c.bin("kubectl"))+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kwokctl %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// pid is the process id of a component kwokctl started, 0 when it is not
// running.
func (c *Config) pid(component string) int {
	b, err := os.ReadFile(filepath.Join(c.clusterDir(), "pids", component+".pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if !alive(pid) {
		return 0
	}
	return pid
}

// alive is false for a zombie too (kwokctl takes one for a running process).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := bytes.LastIndexByte(b, ')')
	return pid > 0 && err == nil && i > 0 && i+2 < len(b) && b[i+2] != 'Z'
}

// stop sends TERM to the process, KILL after 10 s, and returns once it is gone.
func stop(pid int) error {
	_ = syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 150; i++ {
		if i == 100 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if !alive(pid) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("process %d survived KILL", pid)
}

// processes are the cluster's processes, whatever kwokctl's pid files say
// (docs/local-control-plane.md).
func (c *Config) processes() []int {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, p := range procs {
		exe, _ := os.Readlink(p + "/exe")
		if !slices.Contains([]string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"}, filepath.Base(exe)) {
			continue
		}
		if cmdline, err := os.ReadFile(p + "/cmdline"); err == nil && bytes.Contains(cmdline, []byte(c.Dir+"/")) {
			pid, _ := strconv.Atoi(filepath.Base(p))
			pids = append(pids, pid)
		}
	}
	return pids
}
