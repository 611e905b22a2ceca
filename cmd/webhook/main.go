// Command webhook is the kpatch mutating admission webhook; its flags and
// wiring are in package app.
package main

import (
	"os"

	ctrl "sigs.k8s.io/controller-runtime"

	"kpatch.dev/kpatch/cmd/webhook/app"
)

func main() {
	if err := app.NewCommand().ExecuteContext(ctrl.SetupSignalHandler()); err != nil {
		os.Exit(1)
	}
}
