// Command etcd is go.etcd.io/etcd/server/v3's etcdmain, built from the module
// proxy so the e2e tests can run a real control plane offline.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
