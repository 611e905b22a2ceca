package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/admit"
	"kpatch.dev/kpatch/pkg/metrics"
)

// reviewUID finds the type and the request's uid of a review that was not
// read whole or does not decode: a request holding only that uid and the
// type to answer in (v1 when it says none), or nil and v1 when there is
// no uid.
//
// It reads the body token by token and stops once it has all three, so an
// object nested deeper than any decoder's limit, a body cut short after
// the uid, or a uid after the object (the API server writes it first) do
// not hide the uid. A review's decoding reads the uid before anything
// that can fail on the object; this reads it when that decoding failed.
func reviewUID(body []byte) (*admission.Request, metav1.TypeMeta) {
	var typ metav1.TypeMeta
	var uid string
	dec := json.NewDecoder(bytes.NewReader(body))
	done := func() bool { return uid != "" && typ.APIVersion != "" && typ.Kind != "" }
	_ = inObject(dec, func(key string) (bool, error) {
		switch {
		case strings.EqualFold(key, "apiVersion"):
			typ.APIVersion = stringValue(dec)
		case strings.EqualFold(key, "kind"):
			typ.Kind = stringValue(dec)
		case strings.EqualFold(key, "request"):
			err := inObject(dec, func(key string) (bool, error) {
				if strings.EqualFold(key, "uid") {
					uid = stringValue(dec)
					return done(), nil
				}
				return false, skipValue(dec)
			})
			return done(), err
		default:
			return false, skipValue(dec)
		}
		return done(), nil
	})
	v1 := metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "AdmissionReview"}
	if uid == "" {
		return nil, v1 // controller-runtime's answer, untyped
	}
	if typ == (metav1.TypeMeta{}) {
		typ = v1
	}
	req := &admission.Request{}
	req.UID = types.UID(uid)
	return req, typ
}

// errScanDone ends a scan that found what it looks for, or that found no
// object where it looks.
var errScanDone = errors.New("scan done")

// inObject reads one JSON object from dec, calling member with each key,
// the decoder before its value, which member must read. It stops when
// member reports done, or at the first error.
func inObject(dec *json.Decoder, member func(key string) (done bool, err error)) error {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errScanDone
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		done, err := member(key)
		if err != nil {
			return err
		}
		if done {
			return errScanDone
		}
	}
	_, err := dec.Token()
	return err
}

// stringValue reads the next value of dec: the string it is, else "".
func stringValue(dec *json.Decoder) string {
	tok, err := dec.Token()
	if err != nil {
		return ""
	}
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		_ = skipNested(dec)
		return ""
	}
	s, _ := tok.(string)
	return s
}

// skipValue reads the next value of dec, nested as deep as it is: token by
// token, without recursion or a depth limit.
func skipValue(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		return skipNested(dec)
	}
	return nil
}

// skipNested reads the rest of an object or array whose opening delimiter
// dec has just read.
func skipNested(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// answerUnread answers a review that was not read whole or does not
// decode but whose uid is known (req holds only it): by the Handler's
// ErrorPolicy, as an internal error of reason decode with the answer's
// HTTP status code as the denial's code, logged and counted as the
// Handler does, through controller-runtime's Handle (the request's logger,
// panic recovery, the uid set on the answer). A Handler other than
// *Handler gets controller-runtime's error answer, with the uid.
func (wh *Webhook) answerUnread(ctx context.Context, req *admission.Request, code int32, err error) admission.Response {
	h, ok := wh.Handler.(*Handler)
	if !ok {
		wh.logger(req).Error(err, "bad request")
		resp := admission.Errored(code, err)
		resp.UID = req.UID
		return resp
	}
	answering := &admission.Webhook{
		Handler:        unreadAnswer{h: h, err: &admit.Error{Reason: metrics.ReasonDecode, Code: code, Err: err}},
		RecoverPanic:   wh.RecoverPanic,
		LogConstructor: wh.LogConstructor,
	}
	return answering.Handle(ctx, *req)
}

// unreadAnswer answers every request with the Handler's answer to err.
type unreadAnswer struct {
	h   *Handler
	err *admit.Error
}

func (u unreadAnswer) Handle(ctx context.Context, _ admission.Request) admission.Response {
	resp, result := u.h.answerInternal(logf.FromContext(ctx), u.err)
	u.h.Metrics.Request(result)
	return resp
}
