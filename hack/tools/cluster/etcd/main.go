// Command etcd is the etcd server of the local control plane, built from
// go.etcd.io/etcd/server/v3 at the version this module pins, which is the
// etcd client version of k8s.io/kubernetes.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
