package framework

// The real node as MCO's daemon sees it (docs/mco-standin.md, "The real
// node"): its files where the kubelet and CRI-O of hack/node.sh read them,
// its services restarted by hack/node.sh as systemd restarts them.

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/stretchr/testify/require"
)

// HostIP is this machine's address on the node's veth pair: what the node
// reaches this machine at (hack/node.sh).
func (n *RealNode) HostIP(t testing.TB) string {
	t.Helper()
	ip, err := os.ReadFile(filepath.Join(n.Dir, "host-ip"))
	require.NoError(t, err, "the real node's host-ip (hack/node.sh up)")
	return strings.TrimSpace(string(ip))
}

// restart runs hack/node.sh restart-<service>; the error is its last line.
func (n *RealNode) restart(root, service string) error {
	cmd := exec.Command(filepath.Join(root, "hack", "node.sh"), "restart-"+service)
	cmd.Env = append(os.Environ(), "NODE_DIR="+n.Dir, "NODE_NAME="+n.Name)
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return errors.New(lines[len(lines)-1])
}

// realStandInNode is the real node for the stand-in's daemon.
type realStandInNode struct {
	n    *RealNode
	root string // the repository, for hack/node.sh
}

func (r realStandInNode) HostPath(p string) string { return r.n.HostPath(p) }
func (r realStandInNode) RestartCRIO() error       { return r.n.restart(r.root, "crio") }
func (r realStandInNode) RestartKubelet() error    { return r.n.restart(r.root, "kubelet") }

// StartMCOStandInOnRealNode runs the double over the real node (its pool
// by its labels) until the test ends, then removes what it wrote.
func StartMCOStandInOnRealNode(t testing.TB, admin *rest.Config, n *RealNode) *MCOStandIn {
	t.Helper()
	s := newMCOStandIn(t, dynamic.NewForConfigOrDie(admin), kubernetes.NewForConfigOrDie(admin), map[string]standInNode{n.Name: realStandInNode{n, RepoRoot(t)}})
	require.NoError(t, s.forget(Context(t, time.Minute)), "MCO stand-in")
	go s.run()
	t.Cleanup(s.cleanup)
	t.Logf("MCO stand-in (test double) started over the real node %s", n.Name)
	return s
}
