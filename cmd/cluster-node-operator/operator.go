package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/openshift/cluster-node-operator/pkg/operator"
	"github.com/openshift/cluster-node-operator/pkg/operator/launcher"
)

func newOperatorCommand(ctx context.Context) *cobra.Command {
	process := launcher.NewOptions("cluster-node-operator")
	opts := operator.NewOptions()
	process.Prepare = operator.Prepare
	cmd := &cobra.Command{
		Use:          "operator",
		Short:        "Run the node operator",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A configuration error fails here, before the lease is taken,
			// rather than in a leader that then exits and loops.
			if err := opts.Validate(); err != nil {
				return err
			}
			return process.Run(ctx, opts.RunOperator)
		},
	}
	flags := cmd.Flags()
	process.AddFlags(flags)
	t := &opts.CertTiming
	flags.DurationVar(&t.SignerValidity, "crio-metrics-signer-validity", t.SignerValidity, "Validity of the CRI-O metrics signing CA.")
	flags.DurationVar(&t.SignerRefresh, "crio-metrics-signer-refresh", t.SignerRefresh, "Age at which the CRI-O metrics signing CA is replaced.")
	flags.DurationVar(&t.ServingValidity, "crio-metrics-cert-validity", t.ServingValidity, "Validity of the CRI-O metrics serving certificate.")
	flags.DurationVar(&t.ServingRefresh, "crio-metrics-cert-refresh", t.ServingRefresh, "Age at which the CRI-O metrics serving certificate is replaced.")
	n := &opts.NodeSettingsTiming
	flags.DurationVar(&n.Update, "node-settings-update-timeout", n.Update, "How long the machine-config operator may take to update a pool to changed node settings before they are rolled back.")
	flags.DurationVar(&n.Soak, "node-settings-soak", n.Soak, "How long a pool's nodes must stay healthy after an update of the node settings before the next pool starts.")
	flags.DurationVar(&n.Gate, "node-settings-gate", n.Gate, "How long unhealthy nodes may take to recover after an update of the node settings before it is rolled back.")
	p := &opts.Prometheus
	flags.StringVar(&p.URL, "prometheus-url", p.URL, "Prometheus query API that the node settings health gate asks whether CRI-O's metrics are scraped; empty to check node readiness only.")
	flags.StringVar(&p.CAFile, "prometheus-ca-file", p.CAFile, "CA bundle that signs the Prometheus query API's serving certificate; empty for the system's roots.")
	flags.StringVar(&p.TokenFile, "prometheus-token-file", p.TokenFile, "Bearer token for the Prometheus query API.")
	return cmd
}
