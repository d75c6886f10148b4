// Command local-cluster runs the local control plane; hack/local-cluster.sh
// builds and calls it (see there for the commands and the LCP_* variables).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/openshift/cluster-node-operator/test/e2e/framework"
	"github.com/openshift/cluster-node-operator/test/localcluster"
)

const usage = "usage: local-cluster -root REPO up|down|nodes <count>|restart-apiserver|apply <field manager> <file>...|mco-policy-status|feature-gates <operator version>"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "local-cluster: error: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 3 || args[0] != "-root" {
		return fmt.Errorf("%s", usage)
	}
	c, err := localcluster.FromEnv(args[1])
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	switch cmd, rest := args[2], args[3:]; {
	case cmd == "up" && len(rest) == 0:
		err = c.Up(ctx)
		if err == nil {
			fmt.Println(c.Kubeconfig())
		}
		return err
	case cmd == "down" && len(rest) == 0:
		return c.Down()
	case cmd == "nodes" && len(rest) == 1:
		n, err := strconv.Atoi(rest[0])
		if err != nil || n < 0 {
			return fmt.Errorf("node count must be a number, got %q", rest[0])
		}
		return c.ScaleNodes(ctx, n)
	case cmd == "restart-apiserver" && len(rest) == 0:
		return c.RestartAPIServer(ctx)
	case cmd == "apply" && len(rest) >= 2:
		return c.ApplyFiles(ctx, rest[0], rest[1:])
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig())
	switch cmd, rest := args[2], args[3:]; {
	case err != nil:
		return err
	case cmd == "feature-gates" && len(rest) == 1:
		// The cluster-config operator's part: FeatureGate cluster's status
		// for the operator's version, which the operator waits for.
		return framework.WriteFeatureGateStatus(ctx, cfg, rest[0])
	case cmd == "mco-policy-status" && len(rest) == 0:
		// The local world has no MCO: this stands for its operator's node
		// disruption policy status until interrupted (make run).
		framework.RunMCOPolicyStatus(ctx, cfg, func(format string, args ...interface{}) {
			fmt.Fprintf(os.Stderr, "local-cluster: "+format+"\n", args...)
		})
		return nil
	}
	return fmt.Errorf("%s", usage)
}
