// Command demo runs kpatch end to end on this machine: it starts a real
// kube-apiserver and etcd, loads the registry ConfigMaps given with
// -registry, runs the webhook, creates the Deployment of -f in an opted-in
// namespace and prints what the webhook changed. make demo gives it the
// files make demo-cli gives `kpatch apply --registry ... -f ...`: the
// example registry of config/samples and examples/quickstart/app.yaml.
//
//	go run ./test/demo -f examples/quickstart/app.yaml -registry config/samples/registry-quickstart.yaml ...
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"gomodules.xyz/jsonpatch/v2"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	sigsyaml "sigs.k8s.io/yaml"

	"kpatch.dev/kpatch/test/cluster"
)

// files is a repeatable flag: every value given, in order.
type files []string

func (f *files) String() string     { return strings.Join(*f, ",") }
func (f *files) Set(v string) error { *f = append(*f, v); return nil }

func main() {
	var registry files
	app := flag.String("f", "", "the manifest whose Deployment the demo creates")
	flag.Var(&registry, "registry", "a registry ConfigMap manifest to load; repeatable")
	flag.Parse()
	if *app == "" || len(registry) == 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: demo -f MANIFEST -registry CONFIGMAP...")
		os.Exit(2)
	}
	if err := run(context.Background(), *app, registry); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, app string, registry []string) error {
	step("starting kube-apiserver and etcd")
	c, err := cluster.Start(ctx, cluster.Options{})
	if err != nil {
		return err
	}
	defer c.Stop()

	for _, f := range registry {
		step("loading the registry ConfigMap " + f)
		var cm corev1.ConfigMap
		if err := readManifest(f, &cm); err != nil {
			return err
		}
		if err := c.Client.Create(ctx, &cm); err != nil {
			return err
		}
	}

	step("starting the webhook")
	bin, err := c.BuildWebhook()
	if err != nil {
		return err
	}
	var logs bytes.Buffer
	wh, err := c.StartWebhook(ctx, bin, 0, &logs)
	if err != nil {
		return fmt.Errorf("%w\n%s", err, logs.String())
	}
	defer wh.Stop()

	var d appsv1.Deployment
	if err := readManifest(app, &d); err != nil {
		return err
	}
	// The same Deployment in a namespace that has not opted in shows what
	// the API server alone does (defaults); the difference to the opted-in
	// one is what kpatch did.
	var stored [2]appsv1.Deployment
	for i, ns := range []string{"plain", "shop"} {
		nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		if ns == "shop" {
			nsObj.Labels = map[string]string{cluster.InjectLabel: "enabled"}
			step("creating namespace shop with " + cluster.InjectLabel + "=enabled, and the Deployment of " + app + " in it")
		}
		if err := c.Client.Create(ctx, nsObj); err != nil {
			return err
		}
		obj := d.DeepCopy()
		obj.Namespace = ns
		if err := c.Client.Create(ctx, obj); err != nil {
			return err
		}
		if err := c.Client.Get(ctx, client.ObjectKeyFromObject(obj), &stored[i]); err != nil {
			return err
		}
	}
	ops, err := diff(&stored[0], &stored[1])
	if err != nil {
		return err
	}
	step(fmt.Sprintf("what the webhook changed (%d JSONPatch operations):", len(ops)))
	for _, op := range ops {
		v, _ := json.Marshal(op.Value)
		fmt.Printf("  %-7s %s  %s\n", op.Operation, op.Path, v)
	}
	containers, _ := sigsyaml.Marshal(stored[1].Spec.Template.Spec.Containers)
	step("the stored containers:")
	fmt.Print(indent(string(containers)))
	return nil
}

// diff returns the JSONPatch from a to b, ignoring what differs between
// any two objects (identity, timestamps, namespace).
func diff(a, b *appsv1.Deployment) ([]jsonpatch.JsonPatchOperation, error) {
	docs := [2][]byte{}
	for i, d := range []*appsv1.Deployment{a, b} {
		d = d.DeepCopy()
		d.ObjectMeta = metav1.ObjectMeta{Name: d.Name, Labels: d.Labels, Annotations: d.Annotations}
		d.Status = appsv1.DeploymentStatus{}
		var err error
		if docs[i], err = json.Marshal(d); err != nil {
			return nil, err
		}
	}
	ops, err := jsonpatch.CreatePatch(docs[0], docs[1])
	sort.Slice(ops, func(i, j int) bool { return ops[i].Path < ops[j].Path })
	return ops, err
}

func readManifest(path string, into any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return yaml.NewYAMLOrJSONDecoder(f, 4096).Decode(into)
}

func step(s string) { fmt.Println("==> " + s) }

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ") + "\n"
}
