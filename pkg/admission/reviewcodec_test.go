package admission

import (
	"encoding/json"
	"reflect"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
)

// TestReviewCodecDecodesAsEncodingJSON holds reviewCodec's decoding to
// encoding/json's on what the API server sends and on what it never
// does but encoding/json accepts: duplicate names and invalid UTF-8.
func TestReviewCodecDecodesAsEncodingJSON(t *testing.T) {
	for name, body := range map[string]string{
		"a review": `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1",` +
			`"kind":{"group":"apps","version":"v1","kind":"Deployment"},"resource":{"group":"apps","version":"v1","resource":"deployments"},` +
			`"name":"web","namespace":"shop","operation":"CREATE","userInfo":{"username":"x","groups":["a","b"],"extra":{"k":["v"]}},` +
			`"object":` + deploymentJSON + `,"oldObject":null,"dryRun":true,"options":{"kind":"CreateOptions"}}}`,
		"duplicate names":   `{"kind":"AdmissionReview","request":{"uid":"first","uid":"second","name":"a","name":"b"}}`,
		"invalid UTF-8":     "{\"request\":{\"uid\":\"u\xff\",\"name\":\"\xc3\x28\"}}",
		"escapes":           `{"request":{"uid":"\u00e9\ud83d\ude00\"","object":{"a":"\u00e9"}}}`,
		"no request":        `{"apiVersion":"admission.k8s.io/v1"}`,
		"unknown fields":    `{"x":1,"request":{"y":{"z":[1,2]},"uid":"u"}}`,
		"an object of null": `{"request":{"uid":"u","object":null}}`,
	} {
		t.Run(name, func(t *testing.T) {
			var got, want review
			got.Request, want.Request = &admissionv1.AdmissionRequest{}, &admissionv1.AdmissionRequest{}
			if err := json.Unmarshal([]byte(body), &want); err != nil {
				t.Fatal(err)
			}
			if err := reviewCodec.Unmarshal([]byte(body), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got.Request, want.Request)
			}
		})
	}
}
