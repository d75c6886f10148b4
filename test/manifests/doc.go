// Package manifests lints manifests/, what the cluster-version operator
// applies from the operator's image: file names and run levels, release
// profile annotations, the order the CVO applies them in, the Deployment's
// conventions and its metrics sidecar, image references, RBAC, and the
// ClusterOperator's relatedObjects. It has only tests; `make test-unit` runs
// them.
package manifests
