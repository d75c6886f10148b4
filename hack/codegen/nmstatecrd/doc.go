// Package nmstatecrd holds the Go types from which hack/update-codegen.sh
// generates bindata/nmstate/crd-nmstates.yaml, the nmstates.nmstate.io CRD
// the NMState stack installs.
//
// The CRD must be the one of the NMState operator the payload ships: the
// same versions, schema and defaults, so that a CR written for that operator
// is neither pruned nor refused and the defaults reach its handler (an empty
// probeConfiguration.dns.host delays every policy and disables the DNS check
// after a change). The Go module that defines the NMState API is not served
// by the module proxy, so these types restate it: field names, JSON names,
// types and kubebuilder markers as openshift/kubernetes-nmstate declares them
// in api/v1 and api/v1beta1 at 32524b06 (release-5.0 and 5.1), with our own
// descriptions. When the payload's NMState operator changes its API, change
// these types to match and run make update-codegen (docs/nmstate.md).
package nmstatecrd
