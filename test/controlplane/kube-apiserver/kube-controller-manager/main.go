// Command kube-controller-manager is k8s.io/kubernetes/cmd/kube-controller-manager,
// built from the same module (and so the same go.sum and Kubernetes version) as
// kube-apiserver, so the e2e tests that need controllers (a Deployment's
// ReplicaSet creating Pods) can run them against the test API server.
package main

import (
	"os"
	_ "time/tzdata" // for timeZone support in CronJob

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // for JSON log format registration
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // load all the prometheus client-go plugins
	_ "k8s.io/component-base/metrics/prometheus/version"  // for version metric registration
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() {
	command := app.NewControllerManagerCommand()
	code := cli.Run(command)
	os.Exit(code)
}
