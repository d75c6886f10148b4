// Command cert-syncer is the node side of the CRI-O metrics stack, built as a
// binary of its own so that it links nothing of the operator: it runs on every
// node with a budget of 15 MiB RSS, and the operator binary's package
// initialisation alone costs more than that. `cluster-node-operator
// cert-syncer` runs the same code.
package main

import (
	"os"

	"k8s.io/component-base/cli"

	"github.com/openshift/cluster-node-operator/pkg/certrotation/syncer"
)

func main() {
	os.Exit(cli.Run(syncer.NewCommand()))
}
