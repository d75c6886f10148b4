package localcluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// marker marks a state directory this harness made; down removes no other.
// upMarker says up finished.
const marker, upMarker = ".local-cluster", ".up"

// Up starts the cluster and sets it up; a healthy cluster is left as it is,
// a partial one is removed first.
func (c *Config) Up(ctx context.Context) error {
	start := time.Now()
	if c.healthy(ctx) == nil {
		logf("already up")
		return nil
	}
	if _, err := os.Stat(c.Dir); err == nil || len(c.strays()) > 0 {
		logf("found a partial cluster in %s; removing it and starting afresh", c.Dir)
		if err := c.Down(); err != nil {
			return err
		}
	}
	for _, p := range c.ports() {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			return fmt.Errorf("port %d is in use; set the LCP_*_PORT variables to free ports", p)
		}
		_ = l.Close()
	}
	if _, err := os.Stat(c.Dir); err == nil {
		return fmt.Errorf("%s exists and was not made by this harness; choose another LCP_DIR", c.Dir)
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.Dir, marker), nil, 0o644); err != nil {
		return err
	}
	if err := c.writeKwokctlConfig(); err != nil {
		return err
	}
	if err := c.createCluster(); err != nil {
		return err
	}
	if err := os.Symlink(filepath.Join(c.clusterDir(), "logs"), filepath.Join(c.Dir, "logs")); err != nil {
		return err
	}
	if err := c.writeKubeconfig(); err != nil {
		return err
	}
	if err := c.waitHealthy(ctx, "kube-apiserver", 180*time.Second); err != nil {
		return err
	}
	// kwokctl starts the components at once; one that gave up waiting for
	// the API server is started again.
	if err := c.startStopped(); err != nil {
		return err
	}
	for _, comp := range components {
		if err := c.waitHealthy(ctx, comp, 120*time.Second); err != nil {
			return err
		}
	}
	cl, err := c.clients()
	if err != nil {
		return err
	}
	if err := c.installCRDs(ctx, cl); err != nil {
		return err
	}
	if err := c.clusterConfig(ctx, cl); err != nil {
		return err
	}
	if err := c.scaleNodes(ctx, cl, c.Nodes); err != nil {
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
	version, _ := cl.kube.Discovery().ServerVersion()
	logf("up in %.1fs: %v, %d nodes, platform %s, topology %s", time.Since(start).Seconds(), version, c.Nodes, c.Platform, c.Topology)
	logf("logs in %s/logs; export KUBECONFIG=%s", c.Dir, c.Kubeconfig())
	return nil
}

// writeKubeconfig writes $LCP_DIR/admin.kubeconfig from kwokctl's, with the
// certificates embedded.
func (c *Config) writeKubeconfig() error {
	kc, err := clientcmd.LoadFromFile(filepath.Join(c.clusterDir(), "kubeconfig.yaml"))
	if err != nil {
		return err
	}
	if err := clientcmdapi.FlattenConfig(kc); err != nil {
		return err
	}
	return clientcmd.WriteToFile(*kc, c.Kubeconfig())
}

// Down stops every component and removes the state directory.
func (c *Config) Down() error {
	var pids []int
	for _, comp := range components {
		if pid := c.pid(comp); pid != 0 {
			pids = append(pids, pid)
		}
	}
	if _, err := os.Stat(filepath.Join(c.clusterDir(), "kwok.yaml")); err == nil {
		if err := c.kwokctl("stop", "cluster"); err != nil {
			logf("warning: %v", err)
		}
	}
	// kwokctl kills without waiting; strays are processes of a cluster
	// kwokctl no longer knows (e.g. it failed halfway).
	for _, pid := range append(pids, c.strays()...) {
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

// Status reports every component; it fails unless all are up and healthy.
func (c *Config) Status(ctx context.Context) error {
	var failed []string
	for _, comp := range components {
		state, pid := "stopped", c.pid(comp)
		if pid != 0 {
			state = "healthy"
			if err := c.probe(ctx, comp); err != nil {
				state = "unhealthy"
			}
		}
		if state != "healthy" {
			failed = append(failed, comp)
		}
		fmt.Printf("%-24s %-10s pid %d\n", comp, state, pid)
	}
	if len(failed) > 0 {
		return fmt.Errorf("not healthy: %s", strings.Join(failed, ", "))
	}
	cl, err := c.clients()
	if err != nil {
		return err
	}
	indexes, ready, err := nodeStates(ctx, cl)
	if err != nil {
		return err
	}
	fmt.Printf("%-24s %d of %d Ready\n%-24s %s\n", "nodes", ready, len(indexes), "kubeconfig", c.Kubeconfig())
	return nil
}

// ScaleNodes scales the simulated nodes to n.
func (c *Config) ScaleNodes(ctx context.Context, n int) error {
	if err := c.healthy(ctx); err != nil {
		return fmt.Errorf("the cluster is not up (%v); run hack/local-cluster.sh up", err)
	}
	cl, err := c.clients()
	if err != nil {
		return err
	}
	return c.scaleNodes(ctx, cl, n)
}

// RestartAPIServer stops kube-apiserver and has kwokctl start it again with
// the same arguments; kwokctl starts only the components that are not
// running, so etcd and the others keep running.
func (c *Config) RestartAPIServer(ctx context.Context) error {
	if err := c.healthy(ctx); err != nil {
		return fmt.Errorf("the cluster is not up (%v); run hack/local-cluster.sh up", err)
	}
	others := map[string]int{}
	for _, comp := range components {
		others[comp] = c.pid(comp)
	}
	pid := others["kube-apiserver"]
	delete(others, "kube-apiserver")
	logf("stopping kube-apiserver (pid %d)", pid)
	if err := stop(pid); err != nil {
		return err
	}
	if err := c.startStopped(); err != nil {
		return err
	}
	if err := c.waitHealthy(ctx, "kube-apiserver", 180*time.Second); err != nil {
		return err
	}
	for comp, pid := range others {
		if c.pid(comp) != pid {
			return fmt.Errorf("%s restarted too (pid %d, was %d)", comp, c.pid(comp), pid)
		}
	}
	logf("kube-apiserver restarted (pid %d)", c.pid("kube-apiserver"))
	return nil
}

// healthy is nil when every component runs and answers its health check.
func (c *Config) healthy(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(c.Dir, upMarker)); err != nil {
		return errors.New("up did not finish")
	}
	for _, comp := range components {
		if c.pid(comp) == 0 {
			return fmt.Errorf("%s is not running", comp)
		}
		if err := c.probe(ctx, comp); err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) waitHealthy(ctx context.Context, comp string, timeout time.Duration) error {
	log := filepath.Join(c.Dir, "logs", comp+".log")
	var last error
	err := poll(ctx, timeout, comp+" health", func() (bool, error) {
		if c.pid(comp) == 0 {
			return false, fmt.Errorf("%s is not running; see %s", comp, log)
		}
		last = c.probe(ctx, comp)
		return last == nil, nil
	})
	if err != nil && last != nil {
		err = fmt.Errorf("%w (%v); see %s", err, last, log)
	}
	return err
}

// probe calls the component's health endpoint on 127.0.0.1.
func (c *Config) probe(ctx context.Context, comp string) error {
	var url string
	client := &http.Client{Timeout: 5 * time.Second}
	switch comp {
	case "etcd":
		url = fmt.Sprintf("http://127.0.0.1:%d/health", c.EtcdPort)
	case "kube-apiserver":
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		cl, err := c.clients()
		if err != nil {
			return err
		}
		body, err := cl.kube.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err != nil || string(body) != "ok" {
			return fmt.Errorf("kube-apiserver /readyz: %v %s", err, body)
		}
		return nil
	case "kube-controller-manager", "kube-scheduler":
		port := c.KCMPort
		if comp == "kube-scheduler" {
			port = c.SchedulerPort
		}
		url = fmt.Sprintf("https://127.0.0.1:%d/healthz", port)
		ca, err := os.ReadFile(c.pki("ca.crt"))
		if err != nil {
			return err
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(ca)
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	case "kwok-controller":
		url = fmt.Sprintf("http://127.0.0.1:%d/healthz", c.KwokPort)
	default:
		return fmt.Errorf("unknown component %s", comp)
	}
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s %s", url, resp.Status, body)
	}
	if comp == "etcd" && !strings.Contains(string(body), `"health":"true"`) {
		return errors.New("etcd /health: " + string(body))
	}
	return nil
}
