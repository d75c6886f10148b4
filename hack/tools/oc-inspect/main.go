// Command oc-inspect is `oc adm inspect` alone: the very command that oc
// registers under `oc adm` (the inspect package of openshift/oc at the version
// pinned in go.mod), without the rest of oc, whose full build takes far longer.
// The e2e must-gather test runs it against the local control plane.
package main

import (
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/openshift/oc/pkg/cli/admin/inspect"
)

func main() {
	cmd := inspect.NewCmdInspect(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	// Name it as oc does, so that its usage and errors read like oc's.
	cmd.Use = "oc adm " + cmd.Use
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
