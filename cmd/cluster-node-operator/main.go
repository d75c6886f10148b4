// Command cluster-node-operator is the OpenShift ClusterOperator "node".
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"

	"github.com/openshift/cluster-node-operator/pkg/certrotation/syncer"
	"github.com/openshift/cluster-node-operator/pkg/version"
)

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	os.Exit(cli.Run(newRootCommand(ctx)))
}

func newRootCommand(ctx context.Context) *cobra.Command {
	root := &cobra.Command{
		Use:   "cluster-node-operator",
		Short: "OpenShift ClusterOperator node: CRI-O metrics and Kubernetes NMState stacks",
		Run: func(cmd *cobra.Command, args []string) {
			_ = cmd.Help()
			os.Exit(1)
		},
	}
	root.AddCommand(newOperatorCommand(ctx), syncer.NewCommand(), newVersionCommand())
	return root
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of this binary",
		Run: func(cmd *cobra.Command, args []string) {
			v := version.Get()
			fmt.Fprintf(cmd.OutOrStdout(), "%s (commit %s, tree %s, built %s, %s %s)\n",
				v.GitVersion, v.GitCommit, v.GitTreeState, v.BuildDate, v.GoVersion, v.Platform)
		},
	}
}
