// Package decoders compares JSON decoders on the webhook's work: the
// benchmark Deployment of pkg/kpatch/testdata/bench decoded into
// map[string]any, and its AdmissionReview decoded with the object kept raw.
// It is a module of its own, so that the decoders measured but not chosen
// stay out of the project's go.mod:
//
//	cd test/decoders && go test -run '^$' -bench . -benchmem -count 3
package decoders

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/bytedance/sonic"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	goccy "github.com/goccy/go-json"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

func obj(b *testing.B) []byte {
	raw, err := os.ReadFile("../../pkg/kpatch/testdata/bench/deployment.json")
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

func review(b *testing.B) []byte {
	out, _ := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{UID: "x", Kind: metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Name: "web", Namespace: "shop", Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: obj(b)}},
	})
	return out
}

func BenchmarkObjectUtilJSON(b *testing.B) {
	raw := obj(b)
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := utiljson.Unmarshal(raw, &m); err != nil {
			b.Fatal(err)
		}
	}
}

func convert(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = convert(e)
		}
	case []any:
		for i, e := range x {
			x[i] = convert(e)
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	}
	return v
}

func BenchmarkObjectEncodingJSONNumber(b *testing.B) {
	raw := obj(b)
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			b.Fatal(err)
		}
		convert(m)
	}
}

func BenchmarkObjectGoccyNumber(b *testing.B) {
	raw := obj(b)
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		d := goccy.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			b.Fatal(err)
		}
		convert(m)
	}
}

var sonicInt = sonic.Config{UseInt64: true, EscapeHTML: true, SortMapKeys: false, ValidateString: true}.Froze()

func BenchmarkObjectSonicInt64(b *testing.B) {
	raw := obj(b)
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := sonicInt.Unmarshal(raw, &m); err != nil {
			b.Fatal(err)
		}
	}
}

// jsontext token walk
func BenchmarkObjectJSONTextWalk(b *testing.B) {
	raw := obj(b)
	b.ReportAllocs()
	for b.Loop() {
		d := jsontext.NewDecoder(bytes.NewReader(raw))
		v, err := walk(d)
		if err != nil {
			b.Fatal(err)
		}
		_ = v
	}
}

func walk(d *jsontext.Decoder) (any, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		m := map[string]any{}
		for d.PeekKind() != '}' {
			k, err := d.ReadToken()
			if err != nil {
				return nil, err
			}
			key := k.String()
			v, err := walk(d)
			if err != nil {
				return nil, err
			}
			m[key] = v
		}
		_, err := d.ReadToken()
		return m, err
	case '[':
		l := []any{}
		for d.PeekKind() != ']' {
			v, err := walk(d)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		_, err := d.ReadToken()
		return l, err
	case '"':
		return tok.String(), nil
	case '0':
		if i, err := strconv.ParseInt(tok.String(), 10, 64); err == nil {
			return i, nil
		}
		f, _ := tok.Float()
		return f, nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	}
	return nil, nil
}

func BenchmarkObjectJSONv2Any(b *testing.B) {
	raw := obj(b)
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := jsonv2.Unmarshal(raw, &m); err != nil {
			b.Fatal(err)
		}
	}
}

var admissionCodecs = func() serializer.CodecFactory {
	s := runtime.NewScheme()
	_ = admissionv1.AddToScheme(s)
	return serializer.NewCodecFactory(s)
}()

// BenchmarkReviewUniversalDeserializer is controller-runtime's way.
func BenchmarkReviewUniversalDeserializer(b *testing.B) {
	raw := review(b)
	b.ReportAllocs()
	for b.Loop() {
		var r admissionv1.AdmissionReview
		if _, _, err := admissionCodecs.UniversalDeserializer().Decode(raw, nil, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReviewEncodingJSON(b *testing.B) {
	raw := review(b)
	b.ReportAllocs()
	for b.Loop() {
		var r admissionv1.AdmissionReview
		if err := json.Unmarshal(raw, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReviewSonic(b *testing.B) {
	raw := review(b)
	b.ReportAllocs()
	for b.Loop() {
		var r admissionv1.AdmissionReview
		if err := sonic.ConfigStd.Unmarshal(raw, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReviewJSONv2(b *testing.B) {
	raw := review(b)
	b.ReportAllocs()
	for b.Loop() {
		var r admissionv1.AdmissionReview
		if err := jsonv2.Unmarshal(raw, &r); err != nil {
			b.Fatal(err)
		}
	}
}
