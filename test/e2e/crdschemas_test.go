package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// gadgetCRD is schema.e2e.kpatch.dev/v1 Gadget, whose spec.mode is one of
// fast and slow, spec.size an integer, spec.version and spec.tags strings.
func gadgetCRD() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "gadgets.schema.e2e.kpatch.dev"},
		"spec": map[string]any{
			"group": "schema.e2e.kpatch.dev",
			"scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{"spec": map[string]any{
						"type": "object",
						"properties": map[string]any{
							"mode":    map[string]any{"type": "string", "enum": []any{"fast", "slow"}},
							"size":    map[string]any{"type": "integer"},
							"version": map[string]any{"type": "string"},
							"tags":    map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
							"ports": map[string]any{
								"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"port"},
								"items": map[string]any{"type": "object", "required": []any{"port"}, "properties": map[string]any{
									"port": map[string]any{"type": "integer"}, "name": map[string]any{"type": "string"},
								}},
							},
						},
					}},
				}},
			}},
		},
	}}
}

func gadget(ns, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "schema.e2e.kpatch.dev/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"mode": "slow", "size": int64(1), "ports": []any{map[string]any{"port": int64(80), "name": "http"}}},
	}}
}

// TestCustomResourcesHeldToTheirCRD: the webhook reads the CRD's
// structural schema from the API server; a file that writes a value
// outside a custom resource's enum is left out of it with a warning
// naming the file, the field and the values, and a valid file on the same
// object applies, on the real API server. What the files write is typed
// by the CRD: 1.10, a value's or a constant's, reaches a string field as
// the text 1.10, and the text "3" an integer field as 3; an insertion into
// a list the CRD keys by port updates the item of that port.
func TestCustomResourcesHeldToTheirCRD(t *testing.T) {
	const ns = "crd-schemas-e2e"
	ctx := context.Background()
	crd := gadgetCRD()
	if err := env.Client.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, crd) })
	o := newOwnWebhook(t, ns, []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"schema.e2e.kpatch.dev"}, APIVersions: []string{"v1"}, Resources: []string{"gadgets"}},
	}})
	o.namespace(t, ns)
	o.registry(t, "kpatch-system", "gadgets", map[string]string{
		"mode.kpatch":    "[gadget(schema.e2e.kpatch.dev).*]\nspec.mode: fastt\n",
		"size.kpatch":    "[gadget(schema.e2e.kpatch.dev).*]\nspec.size: \"3\"\n",
		"version.kpatch": "[gadget(schema.e2e.kpatch.dev).*]\nspec.version: ${values.release}\nspec.tags.stable: ${values.stable}\nspec.tags.minor: 2.10\n",
		"values.yaml":    "values:\n  release: 1.10\n  stable: yes\n",
		"ports.kpatch":   "[gadget(schema.e2e.kpatch.dev).*.spec.ports[-]]\nport: \"80\"\nname: web\n",
	})
	o.start(t)

	var warnings warningRecorder
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = &warnings
	c, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	// the CRD is served, and the registry synced, within a few seconds
	eventually(t, 30*time.Second, func() error {
		probe := gadget(ns, "probe")
		if err := c.Create(ctx, probe, client.DryRunAll); err != nil {
			return err
		}
		if size, _, _ := unstructured.NestedInt64(probe.Object, "spec", "size"); size != 3 {
			return fmt.Errorf("not patched yet: spec.size %d", size)
		}
		return nil
	})
	warnings = warningRecorder{}
	g := gadget(ns, "g")
	if err := c.Create(ctx, g); err != nil {
		t.Fatalf("the Gadget is refused: %v", err)
	}
	stored := gadget(ns, "g")
	if err := c.Get(ctx, client.ObjectKeyFromObject(g), stored); err != nil {
		t.Fatal(err)
	}
	if size, _, _ := unstructured.NestedInt64(stored.Object, "spec", "size"); size != 3 {
		t.Errorf("spec.size %d, want 3 from size.kpatch", size)
	}
	if v, _, _ := unstructured.NestedFieldNoCopy(stored.Object, "spec", "version"); v != "1.10" {
		t.Errorf("spec.version %#v, want the text 1.10 from values.yaml", v)
	}
	if tags, _, _ := unstructured.NestedStringMap(stored.Object, "spec", "tags"); tags["stable"] != "yes" || tags["minor"] != "2.10" {
		t.Errorf("spec.tags %v, want stable: yes and minor: 2.10 as written", tags)
	}
	if ports, _, _ := unstructured.NestedSlice(stored.Object, "spec", "ports"); len(ports) != 1 || ports[0].(map[string]any)["name"] != "web" {
		t.Errorf("spec.ports %v, want the one port 80, renamed web: the insertion's twin by the list-map key", ports)
	}
	if mode, _, _ := unstructured.NestedString(stored.Object, "spec", "mode"); mode != "slow" {
		t.Errorf("spec.mode %q, want slow: mode.kpatch is left out", mode)
	}
	w := warnings.String()
	for _, part := range []string{"mode.kpatch", "not applied", "spec.mode", `"fastt" is not one of fast, slow (did you mean fast?)`} {
		if !strings.Contains(w, part) {
			t.Errorf("the warning %q does not say %q", w, part)
		}
	}
	for _, good := range []string{"size.kpatch", "version.kpatch", "ports.kpatch"} {
		if strings.Contains(w, good) {
			t.Errorf("the warning %q names %s", w, good)
		}
	}
}
