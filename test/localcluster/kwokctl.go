package localcluster

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/template"
	"time"
)

// components are the processes kwokctl runs, by kwokctl's names; each has
// $clusterDir/pids/NAME.pid and $LCP_DIR/logs/NAME.log.
var components = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok-controller"}

// kwokctlConfig is kwokctl's configuration: the binary runtime, our binaries
// (kwokctl downloads nothing when each is a local file), our ports on
// 127.0.0.1, and the flags the components need beyond kwokctl's own. kwokctl
// gives all components one certificate, pki/admin.crt (CN kwok-admin, group
// system:masters, serving and client use), signed by pki/ca.crt; its key also
// signs service account tokens.
var kwokctlConfig = template.Must(template.New("kwokctl").Parse(`apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokctlConfiguration
options:
  runtime: binary
  bindAddress: 127.0.0.1
  securePort: true
  kubeAuthorization: true
  kubeAdmission: true
  quietPull: true
  cacheDir: {{.KwokDir}}/cache
  etcdPort: {{.C.EtcdPort}}
  etcdPeerPort: {{.C.EtcdPeerPort}}
  kubeApiserverPort: {{.C.APIServerPort}}
  kubeControllerManagerPort: {{.C.KCMPort}}
  kubeSchedulerPort: {{.C.SchedulerPort}}
  kwokControllerPort: {{.C.KwokPort}}
  kubeApiserverCertSANs: [{{.ServiceIP}}]
  kubeSchedulerConfig: {{.C.Dir}}/kube-scheduler.yaml
{{- if .C.Audit}}
  kubeAuditPolicy: {{.C.Dir}}/audit-policy.yaml
{{- end}}
  nodeLeaseDurationSeconds: {{.C.NodeLeaseSeconds}}
  heartbeatFactor: 1
  # Nodes are unhealthy once neither their Lease nor their status was renewed
  # for this long; kwok renews the Lease every quarter of its duration.
  kubeControllerManagerNodeMonitorGracePeriodMilliseconds: {{.GraceMillis}}
  kubectlBinary: {{.Bin}}/kubectl
  # Tools kwokctl runs only on request (kwokctl etcdctl, ...): missing local
  # files, so that they fail rather than download.
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
  # Endpoints may not hold loopback addresses: the kubernetes Service gets a
  # ClusterIP but no endpoints (nothing in the cluster would use them).
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
  - {key: service-cluster-ip-range, value: {{.C.ServiceCIDR}}}
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
  - {key: service-cluster-ip-range, value: {{.C.ServiceCIDR}}}
  - {key: node-startup-grace-period, value: {{.GraceMillis}}ms}
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
  - {key: cidr, value: {{.C.PodCIDR}}}
  - {key: v, value: {{.C.KwokLogLevel}}}
---
# More workers than kwok's default 4, for thousands of nodes.
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  nodePlayStageParallelism: 16
  podPlayStageParallelism: 16
  nodeLeaseParallelism: 16
`))

const schedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  qps: 200
  burst: 400
leaderElection:
  leaderElect: false
`

const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
`

// writeKwokctlConfig writes kwokctl's configuration and the files it names.
func (c *Config) writeKwokctlConfig() error {
	var buf bytes.Buffer
	err := kwokctlConfig.Execute(&buf, map[string]any{
		"C":           c,
		"KwokDir":     c.kwokDir(),
		"PKI":         filepath.Join(c.clusterDir(), "pki"),
		"Bin":         filepath.Join(c.Root, "_output", "bin"),
		"ServiceIP":   c.firstServiceIP(),
		"GraceMillis": (c.NodeLeaseSeconds + 10) * 1000,
	})
	if err != nil {
		return err
	}
	files := map[string]string{
		"kwokctl.yaml":        buf.String(),
		"kube-scheduler.yaml": schedulerConfig,
	}
	if c.Audit {
		files["audit-policy.yaml"] = auditPolicy
	}
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
	// KWOK_WORKDIR keeps kwokctl, and kwok, from ~/.kwok. kwokctl runs the
	// first kubectl on PATH (its readiness check, kubectl get --raw
	// /version) and falls back to kubectlBinary only when there is none: our
	// bin directory comes first, so that it is always the pinned kubectl and
	// never one of the host's.
	cmd.Env = append(os.Environ(), "KWOK_WORKDIR="+c.kwokDir(),
		"PATH="+filepath.Dir(c.bin("kubectl"))+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kwokctl %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// createCluster has kwokctl create and start the cluster from our binaries.
func (c *Config) createCluster() error {
	for _, b := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl", "kwok", "kwokctl"} {
		if _, err := os.Stat(c.bin(b)); err != nil {
			return fmt.Errorf("%s is missing: run hack/build-tools.sh cluster (hack/local-cluster.sh up does)", c.bin(b))
		}
	}
	err := c.kwokctl("--config="+filepath.Join(c.Dir, "kwokctl.yaml"), "create", "cluster", "--runtime=binary", "--kubeconfig=", "--timeout=5m",
		"--etcd-binary="+c.bin("etcd"),
		"--kube-apiserver-binary="+c.bin("kube-apiserver"),
		"--kube-controller-manager-binary="+c.bin("kube-controller-manager"),
		"--kube-scheduler-binary="+c.bin("kube-scheduler"),
		"--kwok-controller-binary="+c.bin("kwok"))
	if err != nil {
		return err
	}
	// Every binary was a local file: kwokctl's download cache stays empty.
	if entries, _ := os.ReadDir(filepath.Join(c.kwokDir(), "cache")); len(entries) > 0 {
		return fmt.Errorf("kwokctl downloaded into %s/cache", c.kwokDir())
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
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || !alive(pid) || zombie(pid) {
		return 0
	}
	return pid
}

// startStopped has kwokctl start the components that are not running, with
// the arguments it recorded.
func (c *Config) startStopped() error {
	var stopped []string
	for _, comp := range components {
		if c.pid(comp) == 0 {
			stopped = append(stopped, comp)
			// (kwokctl takes an exited process not yet reaped for a running one)
			_ = os.Remove(filepath.Join(c.clusterDir(), "pids", comp+".pid"))
		}
	}
	if len(stopped) == 0 {
		return nil
	}
	logf("starting %s", strings.Join(stopped, ", "))
	return c.kwokctl("start", "cluster", "--timeout=3m")
}

func alive(pid int) bool { return pid > 0 && syscall.Kill(pid, 0) == nil }

// stop sends TERM to the process and KILL after a grace period; it returns
// once the process is gone.
func stop(pid int) error {
	_ = syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 150; i++ {
		if i == 100 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if !alive(pid) || zombie(pid) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("process %d survived KILL", pid)
}

func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// strays are our processes whatever kwokctl's pid files say: those that run
// one of the tools built under _output/tools with this state directory on
// their command line.
func (c *Config) strays() []int {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	tools := filepath.Join(c.Root, "_output", "tools") + "/"
	var pids []int
	for _, p := range procs {
		pid, _ := strconv.Atoi(filepath.Base(p))
		if pid == os.Getpid() {
			continue
		}
		exe, err := os.Readlink(p + "/exe")
		if err != nil || !strings.HasPrefix(exe, tools) {
			continue
		}
		if cmdline, err := os.ReadFile(p + "/cmdline"); err == nil && bytes.Contains(cmdline, []byte(c.Dir+"/")) {
			pids = append(pids, pid)
		}
	}
	return pids
}
