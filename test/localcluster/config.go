// Package localcluster runs the local control plane of the e2e tests, the
// benchmarks and `make run` (docs/local-control-plane.md).
package localcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Config is the cluster's configuration, read from the LCP_* variables
// (hack/local-cluster.sh lists them).
type Config struct {
	Root       string // the repository; binaries come from Root/_output/bin
	Dir        string // LCP_DIR: the state directory
	Nodes      int    // LCP_NODES; node 0 is a master
	FeatureSet string // LCP_FEATURE_SET: FeatureGate cluster's spec.featureSet at creation
	Audit      bool   // LCP_AUDIT

	APIServerPort, EtcdPort, EtcdPeerPort, KCMPort, SchedulerPort, KwokPort int
}

// FromEnv reads the LCP_* variables.
func FromEnv(root string) (*Config, error) {
	var errs []error
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
		Root:          root,
		Dir:           os.Getenv("LCP_DIR"),
		Nodes:         num("LCP_NODES", 3),
		FeatureSet:    os.Getenv("LCP_FEATURE_SET"),
		Audit:         os.Getenv("LCP_AUDIT") == "1",
		APIServerPort: num("LCP_APISERVER_PORT", 16443),
		EtcdPort:      num("LCP_ETCD_PORT", 16379),
		EtcdPeerPort:  num("LCP_ETCD_PEER_PORT", 16380),
		KCMPort:       num("LCP_KCM_PORT", 16257),
		SchedulerPort: num("LCP_SCHEDULER_PORT", 16259),
		KwokPort:      num("LCP_KWOK_PORT", 16247),
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("invalid configuration: %v", errs)
	}
	if c.Dir == "" {
		c.Dir = filepath.Join(root, "_output", "local-cluster")
	}
	dir, err := filepath.Abs(c.Dir)
	c.Dir = dir
	return c, err
}

// Kubeconfig is the cluster admin's kubeconfig, $LCP_DIR/admin.kubeconfig.
func (c *Config) Kubeconfig() string { return filepath.Join(c.Dir, "admin.kubeconfig") }

func (c *Config) bin(name string) string { return filepath.Join(c.Root, "_output", "bin", name) }

// kwokDir is kwokctl's work directory (KWOK_WORKDIR); clusterDir holds the
// cluster's pki, etcd data, pids and logs.
func (c *Config) kwokDir() string    { return filepath.Join(c.Dir, "kwok") }
func (c *Config) clusterDir() string { return filepath.Join(c.kwokDir(), "clusters", clusterName) }

const clusterName = "local-cluster"

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "local-cluster: "+format+"\n", args...)
}
