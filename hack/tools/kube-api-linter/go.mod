module github.com/openshift/cluster-node-operator/hack/tools/kube-api-linter

go 1.26.0

require (
	golang.org/x/tools v0.37.0
	sigs.k8s.io/kube-api-linter v0.0.0-20260716143926-092fe0c72997
	sigs.k8s.io/yaml v1.4.0
)

require (
	github.com/golangci/plugin-module-register v0.1.2 // indirect
	github.com/kr/pretty v0.3.1 // indirect
	golang.org/x/mod v0.28.0 // indirect
	golang.org/x/sync v0.17.0 // indirect
	gopkg.in/check.v1 v1.0.0-20201130134442-10cb98267c6c // indirect
	k8s.io/apimachinery v0.32.3 // indirect
	k8s.io/gengo/v2 v2.0.0-20250922181213-ec3ebc5fd46b // indirect
	k8s.io/utils v0.0.0-20241104100929-3ea5e8cea738 // indirect
)
