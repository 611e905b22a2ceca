package replacement

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	kustomize "sigs.k8s.io/kustomize/api/filters/replacement"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/yaml"
)

// kustomizeApply runs a replacements file through kustomize's own
// replacement filter, as kustomize build does: the list decoded as a
// kustomization decodes it (unknown fields rejected), the resources read
// as YAML nodes, and each result printed through JSON.
func kustomizeApply(input, repls []byte) ([]map[string]any, error) {
	js, err := yaml.YAMLToJSON(repls)
	if err != nil {
		return nil, err
	}
	var file struct {
		Replacements []types.Replacement `json:"replacements"`
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return nil, err
	}
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(input), OmitReaderAnnotations: true}).Read()
	if err != nil {
		return nil, err
	}
	nodes, err = kustomize.Filter{Replacements: file.Replacements}.Filter(nodes)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(nodes))
	for i, n := range nodes {
		b, err := n.MarshalJSON()
		if err != nil {
			return nil, err
		}
		if err := utiljson.Unmarshal(b, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// viaJSON gives objects the number types a JSON decoder gives, so that
// both sides compare alike.
func viaJSON(t *testing.T, objs []map[string]any) []map[string]any {
	t.Helper()
	b, err := json.Marshal(objs)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	if err := utiljson.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// keyPhrase is the part of a kustomize error that ours must contain: its
// first line, without kyaml's dump of the node.
func keyPhrase(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	msg, _, _ = strings.Cut(msg, ": node contents:")
	return strings.TrimPrefix(msg, "json: ")
}

// TestDifferential runs every testdata case through kustomize's own
// replacement filter and asserts the same output, or that both fail and
// ours carries kustomize's message.
func TestDifferential(t *testing.T) {
	for _, c := range loadCases(t) {
		t.Run(c.name, func(t *testing.T) {
			if reason := c.skipReason(); reason != "" {
				t.Skip(reason)
			}
			want, kerr := kustomizeApply(c.input, c.repls)
			got, err := c.run(readObjects(t, c.input))
			switch {
			case kerr != nil && err == nil:
				t.Fatalf("kustomize fails, we do not: %v", kerr)
			case kerr == nil && err != nil:
				t.Fatalf("we fail, kustomize does not: %v", err)
			case kerr != nil:
				if p := keyPhrase(kerr); !strings.Contains(err.Error(), p) {
					t.Errorf("our error\n  %v\ndoes not contain kustomize's\n  %s", err, p)
				}
				return
			}
			if g, w := viaJSON(t, got), viaJSON(t, want); !reflect.DeepEqual(g, w) {
				t.Errorf("output differs from kustomize's:\nours:\n%s\nkustomize:\n%s", dump(t, g), dump(t, w))
			}
		})
	}
}

func dump(t *testing.T, objs []map[string]any) string {
	t.Helper()
	return string(writeObjects(t, objs))
}
