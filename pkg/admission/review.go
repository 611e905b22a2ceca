package admission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// MaxReviewSize is the largest AdmissionReview the Webhook reads, as
// controller-runtime's: two objects of 3 MiB and 1 MiB for the rest.
const MaxReviewSize = 7 << 20

// Webhook serves an admission.Handler over HTTP as controller-runtime's
// admission.Webhook does (the same size limit, content type check,
// AdmissionReview versions, panic recovery, per-request logger and
// response encoding), but decodes each AdmissionReview once, with the
// object kept as raw bytes for the Handler to decode only when a file may
// target it: controller-runtime's decoding goes through the API
// machinery's universal deserializer, which reads the whole review twice
// (once for its kind) before the handler reads the object a third time.
type Webhook struct {
	// Webhook holds the Handler, the LogConstructor and RecoverPanic, and
	// runs the Handler with controller-runtime's own panic recovery,
	// logger in context and response completion (its Handle).
	admission.Webhook
}

var _ http.Handler = (*Webhook)(nil)

// webhookLog is the base logger of requests, controller-runtime's.
var webhookLog = logf.Log.WithName("admission")

// reviewCodec decodes and encodes AdmissionReviews, chosen by measuring
// the webhook end to end (docs/performance.md): go-json-experiment/json
// decodes (as fast as sonic was, without its JIT; encoding/json cost
// 1.5 % of the p50), encoding/json encodes the answer (a few hundred
// bytes), as controller-runtime does.
var reviewCodec codec

// codec is go-json-experiment/json's Unmarshal and encoding/json's
// Encoder.
type codec struct{}

// reviewDecoding makes the decoder accept what encoding/json accepts
// besides names in another case (the API server's decoders, as
// go-json-experiment/json by default, match them exactly): duplicate
// names (the later written over the earlier) and invalid UTF-8 (replaced
// by U+FFFD).
var reviewDecoding = jsonv2.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

// Unmarshal decodes data into v.
func (codec) Unmarshal(data []byte, v any) error { return jsonv2.Unmarshal(data, v, reviewDecoding) }

// NewEncoder is json.NewEncoder.
func (codec) NewEncoder(w io.Writer) *json.Encoder { return json.NewEncoder(w) }

// review is an AdmissionReview of either version (v1 and v1beta1 have the
// same fields): its type, to answer in kind, and its request, whose
// objects stay raw bytes.
type review struct {
	metav1.TypeMeta `json:",inline"`
	Request         *admissionv1.AdmissionRequest  `json:"request,omitempty"`
	Response        *admissionv1.AdmissionResponse `json:"response,omitempty"`
}

// errEmptyBody is a request without a body.
var errEmptyBody = errors.New("request body is empty")

// ServeHTTP reads one AdmissionReview and answers it. A review that is
// too large or does not decode, but whose request's uid could be read, is
// answered with that uid by the Handler's ErrorPolicy (see answerUnread):
// the API server applies its failurePolicy only to answers without it.
func (wh *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	log := wh.logger(nil)
	req, typ, code, err := readReview(r)
	ctx := r.Context()
	if wh.WithContextFunc != nil {
		ctx = wh.WithContextFunc(ctx, r)
	}
	if err != nil && req == nil {
		log.Error(err, "bad request")
		wh.write(w, log, admission.Errored(code, err), typ)
		return
	}
	if err != nil {
		wh.write(w, log, wh.answerUnread(ctx, req, code, err), typ)
		return
	}
	if log.V(5).Enabled() {
		wh.logger(req).V(5).Info("received request")
	}
	wh.write(w, log, wh.Handle(ctx, *req), typ)
}

// readReview reads and decodes the body; on error it returns the HTTP
// status of the answer, and, when the body was read (in part, or whole
// but not decodable) and its request's uid could be found, a request that
// holds only that uid.
func readReview(r *http.Request) (*admission.Request, metav1.TypeMeta, int32, error) {
	v1 := metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "AdmissionReview"}
	if r.Body == nil || r.Body == http.NoBody {
		return nil, v1, http.StatusBadRequest, errEmptyBody
	}
	defer r.Body.Close()
	buf := reviewBuffers.Get().(*bytes.Buffer)
	defer putReviewBuffer(buf)
	buf.Reset()
	// The buffer grows as bytes arrive, never to the announced
	// Content-Length ahead of them: a client that announces 7 MiB and
	// sends one byte holds a few hundred bytes, not 7 MiB. An ordinary
	// review fits the capacity a pooled buffer already has.
	limited := &io.LimitedReader{R: r.Body, N: MaxReviewSize}
	_, err := buf.ReadFrom(limited)
	body := buf.Bytes()
	if err != nil {
		// the body was cut short (the client went away, the server's read
		// timeout): what arrived may hold the uid
		req, typ := reviewUID(body)
		return req, typ, http.StatusBadRequest, fmt.Errorf("reading the AdmissionReview after %d bytes: %w", len(body), err)
	}
	if limited.N <= 0 {
		req, typ := reviewUID(body)
		return req, typ, http.StatusRequestEntityTooLarge, fmt.Errorf("request entity is too large; limit is %d bytes", MaxReviewSize)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		// not declared JSON: not searched for a uid, as controller-runtime
		return nil, v1, http.StatusBadRequest, fmt.Errorf("contentType=%s, expected application/json", ct)
	}
	req := &admission.Request{}
	rv := review{Request: &req.AdmissionRequest}
	// the decoded review keeps nothing of body (the codec copies strings,
	// RawExtension its bytes), which goes back to the pool
	if err := reviewCodec.Unmarshal(body, &rv); err != nil {
		req, typ := reviewUID(body)
		return req, typ, http.StatusBadRequest, fmt.Errorf("decoding the AdmissionReview: %w", err)
	}
	if rv.Request != nil && rv.Request != &req.AdmissionRequest {
		req.AdmissionRequest = *rv.Request
	}
	// answered in the review's own type (admission.k8s.io/v1 or v1beta1,
	// whose fields are the same), v1 when it says none, as
	// controller-runtime does
	if rv.TypeMeta == (metav1.TypeMeta{}) {
		return req, v1, 0, nil
	}
	return req, rv.TypeMeta, 0, nil
}

// write encodes the response as an AdmissionReview of type typ.
func (wh *Webhook) write(w http.ResponseWriter, log logr.Logger, resp admission.Response, typ metav1.TypeMeta) {
	buf := reviewBuffers.Get().(*bytes.Buffer)
	defer putReviewBuffer(buf)
	buf.Reset()
	err := reviewCodec.NewEncoder(buf).Encode(review{TypeMeta: typ, Response: &resp.AdmissionResponse}) // ends with a newline
	if err == nil {
		w.Header().Set("Content-Type", "application/json")
		// its length said, an answer is sent whole when the handler
		// returns; without, one past net/http's 2 KiB buffer (a
		// Deployment's JSONPatch) is sent in chunks, a write to the
		// connection each
		w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
		_, err = w.Write(buf.Bytes())
	}
	if err != nil {
		log.Error(err, "unable to encode and write the response")
		return
	}
	if log.V(5).Enabled() {
		res := resp.AdmissionResponse
		if res.Result != nil {
			log = log.WithValues("code", res.Result.Code, "reason", res.Result.Reason, "message", res.Result.Message)
		}
		log.V(5).Info("wrote response", "requestID", res.UID, "allowed", res.Allowed)
	}
}

// reviewBuffers keep the buffers that reviews are read into and answers
// encoded in between requests.
var reviewBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putReviewBuffer gives buf back to reviewBuffers, unless it is bigger
// than a usual review (a 7 MiB one would be kept for nothing).
func putReviewBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= 1<<20 {
		reviewBuffers.Put(buf)
	}
}

// logger is the logger of a request, or the base one for nil, built as
// controller-runtime's admission.Webhook builds them.
func (wh *Webhook) logger(req *admission.Request) logr.Logger {
	base := webhookLog
	if req == nil {
		return base
	}
	if wh.LogConstructor == nil {
		return admission.DefaultLogConstructor(base, req)
	}
	return wh.LogConstructor(base, req)
}
