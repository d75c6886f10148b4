// Package localcluster runs the local control plane of the e2e tests, the
// benchmarks and `make run` (docs/local-control-plane.md): kwokctl's binary
// runtime starts etcd, kube-apiserver, kube-controller-manager, kube-scheduler
// and the kwok controller from the binaries built under _output/bin, and this
// package sets the cluster up as the tests need it: the OpenShift CRDs, the
// cluster configuration objects and the simulated nodes.
package localcluster

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
)

// Config is the cluster's configuration, read from the LCP_* variables (see
// FromEnv and hack/local-cluster.sh).
type Config struct {
	Root string // the repository; binaries come from Root/_output/bin
	Dir  string // LCP_DIR: the state directory

	Nodes            int    // LCP_NODES; node 0 is a master
	Platform         string // LCP_PLATFORM
	Topology         string // LCP_TOPOLOGY
	InfraTopology    string // LCP_INFRA_TOPOLOGY
	MonitoringCRDs   bool   // LCP_MONITORING_CRDS
	MachineConfigs   bool   // LCP_MACHINECONFIG_CRDS
	NodeLeaseSeconds int    // LCP_NODE_LEASE_SECONDS
	KwokLogLevel     string // LCP_KWOK_LOG_LEVEL
	Audit            bool   // LCP_AUDIT
	// FeatureSet is FeatureGate cluster's spec.featureSet at creation
	// (LCP_FEATURE_SET; "" is Default).
	FeatureSet string

	APIServerPort, EtcdPort, EtcdPeerPort, KCMPort, SchedulerPort, KwokPort int

	ServiceCIDR string // LCP_SERVICE_CIDR
	PodCIDR     string // LCP_POD_CIDR

	// OpenShiftAPIVersion is used only when go.mod does not require
	// github.com/openshift/api (LCP_OPENSHIFT_API_VERSION).
	OpenShiftAPIVersion string
}

// FromEnv reads the LCP_* variables, with the defaults documented in
// hack/local-cluster.sh.
func FromEnv(root string) (*Config, error) {
	var errs []error
	str := func(name, def string) string {
		if v := os.Getenv(name); v != "" {
			return v
		}
		return def
	}
	num := func(name string, def int) int {
		v := os.Getenv(name)
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("%s=%q is not a number", name, v))
		}
		return n
	}
	c := &Config{
		Root:                root,
		Dir:                 str("LCP_DIR", filepath.Join(root, "_output", "local-cluster")),
		Nodes:               num("LCP_NODES", 3),
		Platform:            str("LCP_PLATFORM", "BareMetal"),
		Topology:            str("LCP_TOPOLOGY", "HighlyAvailable"),
		InfraTopology:       os.Getenv("LCP_INFRA_TOPOLOGY"),
		MonitoringCRDs:      str("LCP_MONITORING_CRDS", "1") != "0",
		MachineConfigs:      str("LCP_MACHINECONFIG_CRDS", "1") != "0",
		NodeLeaseSeconds:    num("LCP_NODE_LEASE_SECONDS", 300),
		KwokLogLevel:        str("LCP_KWOK_LOG_LEVEL", "WARN"),
		Audit:               os.Getenv("LCP_AUDIT") == "1",
		FeatureSet:          os.Getenv("LCP_FEATURE_SET"),
		APIServerPort:       num("LCP_APISERVER_PORT", 16443),
		EtcdPort:            num("LCP_ETCD_PORT", 16379),
		EtcdPeerPort:        num("LCP_ETCD_PEER_PORT", 16380),
		KCMPort:             num("LCP_KCM_PORT", 16257),
		SchedulerPort:       num("LCP_SCHEDULER_PORT", 16259),
		KwokPort:            num("LCP_KWOK_PORT", 16247),
		ServiceCIDR:         str("LCP_SERVICE_CIDR", "10.96.0.0/16"),
		PodCIDR:             str("LCP_POD_CIDR", "10.128.0.0/14"),
		OpenShiftAPIVersion: str("LCP_OPENSHIFT_API_VERSION", "v0.0.0-20260715165912-72066cc9718b"),
	}
	if c.InfraTopology == "" {
		c.InfraTopology = "HighlyAvailable"
		if c.Topology == "SingleReplica" {
			c.InfraTopology = "SingleReplica"
		}
	}
	if !filepath.IsAbs(c.Dir) {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		c.Dir = filepath.Join(wd, c.Dir)
	}
	if c.NodeLeaseSeconds == 0 {
		errs = append(errs, fmt.Errorf("LCP_NODE_LEASE_SECONDS must be positive"))
	}
	switch c.KwokLogLevel {
	case "DEBUG", "INFO", "WARN", "ERROR":
	default:
		errs = append(errs, fmt.Errorf("LCP_KWOK_LOG_LEVEL=%q: want DEBUG, INFO, WARN or ERROR", c.KwokLogLevel))
	}
	for name, cidr := range map[string]string{"LCP_SERVICE_CIDR": c.ServiceCIDR, "LCP_POD_CIDR": c.PodCIDR} {
		if _, _, err := net.ParseCIDR(cidr); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("invalid configuration: %v", errs)
	}
	return c, nil
}

// ports are the ports the components listen on, on 127.0.0.1.
func (c *Config) ports() []int {
	return []int{c.EtcdPort, c.EtcdPeerPort, c.APIServerPort, c.KCMPort, c.SchedulerPort, c.KwokPort}
}

// Paths in the state directory.

// Kubeconfig is the cluster admin's kubeconfig, $LCP_DIR/admin.kubeconfig.
func (c *Config) Kubeconfig() string { return filepath.Join(c.Dir, "admin.kubeconfig") }

func (c *Config) bin(name string) string { return filepath.Join(c.Root, "_output", "bin", name) }

// kwokDir is kwokctl's work directory (KWOK_WORKDIR); the cluster's own
// (pki, etcd data, pids, logs) is clusterDir.
func (c *Config) kwokDir() string    { return filepath.Join(c.Dir, "kwok") }
func (c *Config) clusterDir() string { return filepath.Join(c.kwokDir(), "clusters", clusterName) }
func (c *Config) pki(name string) string {
	return filepath.Join(c.clusterDir(), "pki", name)
}

// clusterName is the name of the cluster in kwokctl's work directory, which
// holds only this one.
const clusterName = "local-cluster"

// firstServiceIP is the kubernetes Service's ClusterIP, the first address of
// the service range.
func (c *Config) firstServiceIP() string {
	_, n, _ := net.ParseCIDR(c.ServiceCIDR)
	ip := n.IP.To4()
	if ip == nil {
		ip = n.IP
	}
	ip = append(net.IP(nil), ip...)
	ip[len(ip)-1]++
	return ip.String()
}
