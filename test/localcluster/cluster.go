package localcluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// marker marks a state directory this harness made (Down removes no other);
// upMarker says Up finished.
const marker, upMarker = ".local-cluster", ".up"

// Up starts the cluster and sets it up; a healthy cluster is left as it is,
// a partial one is removed first.
func (c *Config) Up(ctx context.Context) error {
	start := time.Now()
	if c.Healthy(ctx) == nil {
		logf("already up")
		return nil
	}
	if _, err := os.Stat(c.Dir); err == nil || len(c.processes()) > 0 {
		logf("found a partial cluster in %s; removing it and starting afresh", c.Dir)
		if err := c.Down(); err != nil {
			return err
		}
	}
	if _, err := os.Stat(c.Dir); err == nil {
		return fmt.Errorf("%s exists and was not made by this harness; choose another LCP_DIR", c.Dir)
	}
	// A component that cannot bind its port would only show as a timeout.
	for _, p := range []int{c.EtcdPort, c.EtcdPeerPort, c.APIServerPort, c.KCMPort, c.SchedulerPort, c.KwokPort} {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			return fmt.Errorf("port %d is in use; set the LCP_*_PORT variables to free ports", p)
		}
		_ = l.Close()
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	if err := c.writeFiles(); err != nil {
		return err
	}
	err := c.kwokctl("--config="+filepath.Join(c.Dir, "kwokctl.yaml"), "create", "cluster", "--runtime=binary", "--kubeconfig=", "--timeout=5m",
		"--etcd-binary="+c.bin("etcd"), "--kube-apiserver-binary="+c.bin("kube-apiserver"),
		"--kube-controller-manager-binary="+c.bin("kube-controller-manager"),
		"--kube-scheduler-binary="+c.bin("kube-scheduler"), "--kwok-controller-binary="+c.bin("kwok"))
	if err != nil {
		return err
	}
	if err := os.Symlink(filepath.Join(c.clusterDir(), "logs"), filepath.Join(c.Dir, "logs")); err != nil {
		return err
	}
	kc, err := clientcmd.LoadFromFile(filepath.Join(c.clusterDir(), "kubeconfig.yaml"))
	if err == nil {
		err = clientcmdapi.FlattenConfig(kc) // the certificates embedded
	}
	if err == nil {
		err = clientcmd.WriteToFile(*kc, c.Kubeconfig())
	}
	if err == nil {
		err = c.waitRunning(ctx)
	}
	if err != nil {
		return err
	}
	cl, err := c.clients()
	if err != nil {
		return err
	}
	if err := c.setUp(ctx, cl); err != nil {
		return err
	}
	// Pods need the default ServiceAccount (serviceaccount controller) and
	// every namespace kube-root-ca.crt (root-ca-cert-publisher).
	err = poll(ctx, 60*time.Second, "ServiceAccount default/default and ConfigMap default/kube-root-ca.crt", func() (bool, error) {
		_, err1 := cl.kube.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		_, err2 := cl.kube.CoreV1().ConfigMaps("default").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		return err1 == nil && err2 == nil, nil
	})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.Dir, upMarker), nil, 0o644); err != nil {
		return err
	}
	logf("up in %.1fs, %d nodes; logs in %s/logs; export KUBECONFIG=%s", time.Since(start).Seconds(), c.Nodes, c.Dir, c.Kubeconfig())
	return nil
}

// Down stops every component and removes the state directory.
func (c *Config) Down() error {
	for _, pid := range c.processes() {
		if err := stop(pid); err != nil {
			return err
		}
	}
	if entries, err := os.ReadDir(c.Dir); err == nil {
		if _, err := os.Stat(filepath.Join(c.Dir, marker)); err != nil && len(entries) > 0 {
			logf("warning: not removing %s: it was not made by this harness", c.Dir)
		} else if err := os.RemoveAll(c.Dir); err != nil {
			return err
		}
	}
	logf("down")
	return nil
}

// ScaleNodes scales the simulated nodes to n.
func (c *Config) ScaleNodes(ctx context.Context, n int) error {
	cl, err := c.upClients(ctx)
	if err != nil {
		return err
	}
	return scaleNodes(ctx, cl, n)
}

// RestartAPIServer stops kube-apiserver and has kwokctl start it again with
// the same arguments; the other components keep running.
func (c *Config) RestartAPIServer(ctx context.Context) error {
	if err := c.Healthy(ctx); err != nil {
		return fmt.Errorf("the cluster is not up (%v); run hack/local-cluster.sh up", err)
	}
	if err := stop(c.pid("kube-apiserver")); err != nil {
		return err
	}
	return c.waitRunning(ctx)
}

// waitRunning has kwokctl start the components that are not running (one
// that gave up waiting for the API server, one stopped on purpose) until all
// run and kube-apiserver is ready.
func (c *Config) waitRunning(ctx context.Context) error {
	var last error
	err := poll(ctx, 3*time.Minute, "the components", func() (bool, error) {
		for _, comp := range components {
			if c.pid(comp) == 0 {
				// kwokctl starts only those without a live pid file.
				_ = os.Remove(filepath.Join(c.clusterDir(), "pids", comp+".pid"))
				logf("starting %s", comp)
				return false, c.kwokctl("start", "cluster", "--timeout=3m")
			}
		}
		last = c.ready(ctx)
		return last == nil, nil
	})
	if err != nil {
		err = fmt.Errorf("%w (%v); see %s/logs", err, last, c.Dir)
	}
	return err
}

// Healthy is nil when Up finished and every component runs.
func (c *Config) Healthy(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(c.Dir, upMarker)); err != nil {
		return errors.New("up did not finish")
	}
	for _, comp := range components {
		if c.pid(comp) == 0 {
			return fmt.Errorf("%s is not running", comp)
		}
	}
	return c.ready(ctx)
}

// ready is nil when kube-apiserver's /readyz (which includes etcd) says ok.
func (c *Config) ready(ctx context.Context) error {
	cl, err := c.clients()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	body, err := cl.kube.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	if err != nil || string(body) != "ok" {
		return fmt.Errorf("kube-apiserver /readyz: %v %s", err, body)
	}
	return nil
}

// upClients are the clients of a cluster that is up.
func (c *Config) upClients(ctx context.Context) (*clients, error) {
	if err := c.Healthy(ctx); err != nil {
		return nil, fmt.Errorf("the cluster is not up (%v); run hack/local-cluster.sh up", err)
	}
	return c.clients()
}
