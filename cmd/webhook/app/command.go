// Package app is the kpatch webhook process: its command line (Options),
// and the wiring of the controller-runtime manager, the TLS servers, the
// metrics, the registry watcher and the admission handler (Run).
// cmd/webhook only calls NewCommand.
package app

import (
	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"kpatch.dev/kpatch/internal/buildinfo"
)

// NewCommand returns the webhook's command: it validates the flags, sets
// up logging and runs the webhook until the command's context ends.
// --version prints the build (package buildinfo) and exits.
func NewCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "webhook",
		Short: "The kpatch mutating admission webhook",
		Long: `webhook keeps the registry (the patch files in the ConfigMaps of one namespace
that match a selector) compiled in memory and patches every object the API
server sends it, answering with an RFC 6902 JSONPatch.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		Version:      buildinfo.Current().String(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			ctrl.SetLogger(zap.New(zap.UseFlagOptions(&o.Zap)))
			return Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	cmd.SetVersionTemplate("webhook {{.Version}}\n")
	return cmd
}
