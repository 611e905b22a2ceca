package status

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"kpatch.dev/kpatch/internal/cmdline"
)

// Defaults of the registry flags of --scan: the webhook's own.
const (
	DefaultRegistryNamespace = "kpatch-system"
	DefaultRegistrySelector  = "kpatch.dev/registry=true"
)

// options are the flags of kpatch status.
type options struct {
	kubeconfig, context, namespace string
	allNamespaces, scan            bool
	output                         string
	registryNamespace, selector    string
}

// NewCommand is kpatch status: it writes to the command's output and
// error streams.
func NewCommand() *cobra.Command {
	var o options
	cmd := &cobra.Command{
		Use:   "status [-n NAMESPACE | -A] [--scan] [-o json|yaml]",
		Short: "Print the objects of a cluster the registry would change now",
		Long: `Print, per namespace, the objects of the cluster that the registry would
change now (stale objects: created or last updated before a file was added
or edited) and which files would change them, with the fields. It reads the
cluster with your kubeconfig, as kubectl does ($KUBECONFIG, --kubeconfig,
--context; the namespace of -n, else the context's).

By default it reads the drift reports the webhook writes, a PolicyReport
(wgpolicyk8s.io/v1alpha2) named kpatch-drift in each namespace it scans: of
the namespace, or of every namespace with -A. Without the PolicyReport CRD,
or without a report in the namespace, it says so and exits 1.

With --scan it scans one namespace itself, with your credentials: it reads
the registry ConfigMaps (--registry-namespace, --registry-selector),
compiles them, lists the objects of the kinds the registry targets in the
namespace and admits each as an UPDATE, as the webhook's drift scan does,
then prints the same. -o json and -o yaml print the stable structure
docs/drift.md describes.`,
		Args: cmdline.NoArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(cmd.Flags()); err != nil {
				return err
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig `FILE`; $KUBECONFIG or ~/.kube/config when absent, as kubectl")
	f.StringVar(&o.context, "context", "", "kubeconfig `CONTEXT` to use; its current context when absent")
	f.StringVarP(&o.namespace, "namespace", "n", "", "`NAMESPACE` to print; the context's when absent")
	f.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "print every namespace that has a drift report")
	f.BoolVar(&o.scan, "scan", false, "scan the namespace with your credentials instead of reading its report")
	f.StringVarP(&o.output, "output", "o", "", "output `FORMAT`: json or yaml; text when absent")
	f.StringVar(&o.registryNamespace, "registry-namespace", DefaultRegistryNamespace, "with --scan, `NAMESPACE` of the registry ConfigMaps, as the webhook's --registry-namespace")
	f.StringVar(&o.selector, "registry-selector", DefaultRegistrySelector, "with --scan, label `SELECTOR` of the registry ConfigMaps, as the webhook's --registry-selector")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{OutputJSON, OutputYAML}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// validate checks the flags that go together.
func (o *options) validate(f *pflag.FlagSet) error {
	switch {
	case o.output != "" && o.output != OutputJSON && o.output != OutputYAML:
		return cmdline.Errorf("-o must be json, yaml or absent, not %q", o.output)
	case o.allNamespaces && f.Changed("namespace"):
		return cmdline.Errorf("give either -n NAMESPACE or -A, not both")
	case o.scan && o.allNamespaces:
		return cmdline.Errorf("--scan scans one namespace: give -n NAMESPACE, not -A")
	case !o.scan && (f.Changed("registry-namespace") || f.Changed("registry-selector")):
		return cmdline.Errorf("--registry-namespace and --registry-selector go with --scan")
	}
	return nil
}

// run reads the cluster and prints its drift.
func (o *options) run(ctx context.Context, out, warn io.Writer) error {
	loading := clientcmd.NewDefaultClientConfigLoadingRules()
	loading.ExplicitPath = o.kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.context}
	overrides.Context.Namespace = o.namespace
	kc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loading, overrides)
	namespace, _, err := kc.Namespace()
	if err != nil {
		return kubeconfigError(err)
	}
	cfg, err := kc.ClientConfig()
	if err != nil {
		return kubeconfigError(err)
	}
	cfg.UserAgent = "kpatch-status"
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("a client of the cluster: %w", err)
	}
	var st *Status
	switch {
	case o.scan:
		sel, err := labels.Parse(o.selector)
		if err != nil {
			return cmdline.Errorf("--registry-selector: %v", err)
		}
		disc, err := discovery.NewDiscoveryClientForConfig(cfg)
		if err != nil {
			return fmt.Errorf("a client of the cluster: %w", err)
		}
		sc := &scan{client: dyn, discovery: disc, namespace: namespace, registryNamespace: o.registryNamespace, selector: sel, warn: warn}
		st, err = sc.run(ctx)
		if err != nil {
			return err
		}
	case o.allNamespaces:
		namespace = ""
		fallthrough
	default:
		if st, err = readReports(ctx, dyn, namespace); err != nil {
			return err
		}
	}
	return Print(out, st, o.output)
}

// ErrNoKubeconfig is a run without a kubeconfig.
var ErrNoKubeconfig = errors.New("no kubeconfig: give --kubeconfig FILE, set $KUBECONFIG or write ~/.kube/config, as for kubectl")

// kubeconfigError says what is wrong with the kubeconfig.
func kubeconfigError(err error) error {
	if clientcmd.IsEmptyConfig(err) {
		return ErrNoKubeconfig
	}
	return fmt.Errorf("reading the kubeconfig: %w", err)
}
