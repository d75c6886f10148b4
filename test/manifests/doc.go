// Package manifests lints manifests/, what the CVO applies from the
// operator's image (docs/test-behaviours.md); it has only tests.
package manifests
