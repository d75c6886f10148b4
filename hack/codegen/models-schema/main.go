// Command models-schema prints the OpenAPI v2 definitions that
// applyconfiguration-gen needs to generate real Extract functions for the
// NodeOperator API: our own definitions (from openapi-gen) merged with those of
// github.com/openshift/api, whose openapi.json already covers operator/v1 and
// the Kubernetes meta types we embed.
//
// usage: models-schema <path to openshift/api openapi.json>
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/util"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/openshift/cluster-node-operator/pkg/generated/openapi"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "models-schema:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: models-schema <openshift/api openapi.json>")
	}
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		return err
	}
	swagger := &spec.Swagger{}
	if err := json.Unmarshal(raw, swagger); err != nil {
		return fmt.Errorf("parse %s: %w", os.Args[1], err)
	}

	ref := func(name string) spec.Ref {
		return spec.MustCreateRef("#/definitions/" + util.ToRESTFriendlyName(name))
	}
	for name, def := range openapi.GetOpenAPIDefinitions(ref) {
		swagger.Definitions[util.ToRESTFriendlyName(name)] = withVendorExtensions(def)
	}

	out, err := json.MarshalIndent(swagger, "", "  ")
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(out, '\n'))
	return err
}

// withVendorExtensions copies the list-type and list-map-key extensions that
// openapi-gen records on a definition into its schema, where
// applyconfiguration-gen reads them.
func withVendorExtensions(def common.OpenAPIDefinition) spec.Schema {
	return def.Schema
}
