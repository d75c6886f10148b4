package main

import (
	"context"

	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/spf13/cobra"
	"k8s.io/utils/clock"

	"github.com/openshift/cluster-node-operator/pkg/operator"
	"github.com/openshift/cluster-node-operator/pkg/version"
)

func newOperatorCommand(ctx context.Context) *cobra.Command {
	opts := operator.NewOptions()
	config := controllercmd.NewControllerCommandConfig("cluster-node-operator", version.Get(), opts.RunOperator, clock.RealClock{})
	cmd := config.NewCommandWithContext(ctx)
	cmd.Use = "operator"
	cmd.Short = "Run the node operator"

	t := &opts.CertTiming
	flags := cmd.Flags()
	flags.DurationVar(&t.SignerValidity, "crio-metrics-signer-validity", t.SignerValidity, "Validity of the CRI-O metrics signing CA.")
	flags.DurationVar(&t.SignerRefresh, "crio-metrics-signer-refresh", t.SignerRefresh, "Age at which the CRI-O metrics signing CA is replaced.")
	flags.DurationVar(&t.ServingValidity, "crio-metrics-cert-validity", t.ServingValidity, "Validity of the CRI-O metrics serving certificate.")
	flags.DurationVar(&t.ServingRefresh, "crio-metrics-cert-refresh", t.ServingRefresh, "Age at which the CRI-O metrics serving certificate is replaced.")
	// Zero keeps library-go's OpenShift defaults (137s lease); tests that
	// restart or kill the operator shorten them.
	flags.DurationVar(&config.LeaseDuration.Duration, "leader-election-lease-duration", 0, "Leader election lease duration (0: the OpenShift default).")
	flags.DurationVar(&config.RenewDeadline.Duration, "leader-election-renew-deadline", 0, "Leader election renew deadline (0: the OpenShift default).")
	flags.DurationVar(&config.RetryPeriod.Duration, "leader-election-retry-period", 0, "Leader election retry period (0: the OpenShift default).")
	return cmd
}
