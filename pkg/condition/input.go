package condition

import (
	"encoding/json"
	"fmt"

	"github.com/google/cel-go/interpreter"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/cel/common"
)

// Input is what a condition reads: the objects as decoded JSON (maps,
// slices, strings, bools, int64, float64, nil), the request, and the
// bound values of the file.
type Input struct {
	// Object is the object being admitted, as the request gives it,
	// before any file applied; OldObject the stored object of an UPDATE
	// (nil on CREATE).
	Object, OldObject map[string]any
	// Namespace is the object's Namespace (nil for cluster-scoped
	// objects, or when it is not known); TypedNamespace the same, typed,
	// read instead when set (the webhook's cache holds it so).
	Namespace      map[string]any
	TypedNamespace *corev1.Namespace
	// Request is the admission request; its objects are not read (object
	// and oldObject are the variables for them).
	Request *admissionv1.AdmissionRequest
	// Params are the values bound to the file (variable params).
	Params map[string]any
	// PodSpec and PodMetadata are the workload's pod template, for
	// conditions compiled with Options.Workload.
	PodSpec, PodMetadata map[string]any
	// Item is the item a condition compiled with Options.Item is
	// evaluated on (item), as decoded JSON; like Params, it is read at
	// each evaluation, so that one Vars serves every item.
	Item any
}

// OfflineRequest is the request a condition sees offline (kpatch apply
// and test): a CREATE of obj by an unnamed user, not a dry run.
func OfflineRequest(obj map[string]any) *admissionv1.AdmissionRequest {
	return RequestFor(nil, obj, "")
}

// RequestFor is the request of obj offline: a copy of template (nil: a
// CREATE by an unnamed user, not a dry run) with obj's kind, name and
// namespace (namespace when obj has none).
func RequestFor(template *admissionv1.AdmissionRequest, obj map[string]any, namespace string) *admissionv1.AdmissionRequest {
	req := &admissionv1.AdmissionRequest{Operation: admissionv1.Create}
	if template != nil {
		*req = *template
	}
	req.Namespace = namespace
	if obj == nil {
		return req
	}
	api, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gv, _ := runtimeGroupVersion(api)
	req.Kind.Group, req.Kind.Version, req.Kind.Kind = gv[0], gv[1], kind
	if meta, ok := obj["metadata"].(map[string]any); ok {
		req.Name, _ = meta["name"].(string)
		if ns, _ := meta["namespace"].(string); ns != "" {
			req.Namespace = ns
		}
	}
	return req
}

// runtimeGroupVersion splits an apiVersion into group and version.
func runtimeGroupVersion(apiVersion string) ([2]string, bool) {
	for i := 0; i < len(apiVersion); i++ {
		if apiVersion[i] == '/' {
			return [2]string{apiVersion[:i], apiVersion[i+1:]}, true
		}
	}
	return [2]string{"", apiVersion}, apiVersion != ""
}

// Vars are the variables of one object's conditions, converted from an
// Input once, each when a condition first reads it, and shared by every
// condition evaluated for that object. Not safe for concurrent use.
//
// The objects (object, oldObject, podSpec, podMetadata) are jsonMaps,
// made once: a field one condition selected is converted for the next.
// params changes from file to file and is given as it is.
type Vars struct {
	in        *Input
	request   any
	namespace any
	objects   [4]*jsonMap
	converted uint8 // bits: 1 request, 2 namespace
	err       error
}

var _ interpreter.Activation = (*Vars)(nil)

// NewVars returns the variables of in; in must not change while they are
// in use, but for Params and Item, which are read at each evaluation.
func NewVars(in *Input) *Vars { return &Vars{in: in} }

// ResolveName returns the variable name, for the CEL interpreter.
func (v *Vars) ResolveName(name string) (any, bool) {
	in := v.in
	switch name {
	case plugincel.ObjectVarName:
		return v.object(0, in.Object), true
	case plugincel.OldObjectVarName:
		return v.object(1, in.OldObject), true
	case plugincel.ParamsVarName:
		return jsonOrNull(in.Params), true
	case ItemVar:
		if m, ok := in.Item.(map[string]any); ok {
			return jsonOrNull(m), true
		}
		return in.Item, true
	case PodSpecVar:
		return v.object(2, in.PodSpec), true
	case PodMetadataVar:
		return v.object(3, in.PodMetadata), true
	case plugincel.RequestVarName:
		if v.converted&1 == 0 {
			req := in.Request
			if req == nil {
				req = OfflineRequest(in.Object)
			}
			if m, err := requestValue(req); err != nil {
				v.err = err
			} else {
				v.request = newJSONMap(m)
			}
			v.converted |= 1
		}
		return v.request, true
	case plugincel.NamespaceVarName:
		if v.converted&2 == 0 {
			if in.TypedNamespace != nil {
				v.namespace = common.SchemalessTypedToVal(plugincel.CreateNamespaceObject(in.TypedNamespace))
			} else {
				v.namespace, v.err = namespaceValue(in.Namespace)
			}
			v.converted |= 2
		}
		return v.namespace, true
	}
	return nil, false
}

// object returns m as the i-th of objects, made on first use; CEL's null
// for a nil map.
func (v *Vars) object(i int, m map[string]any) any {
	if m == nil {
		return nil
	}
	if v.objects[i] == nil {
		v.objects[i] = newJSONMap(m)
	}
	return v.objects[i]
}

// Parent is nil: Vars are the only activation.
func (v *Vars) Parent() interpreter.Activation { return nil }

// jsonOrNull is m, or CEL's null for a nil map.
func jsonOrNull(m map[string]any) any {
	if m == nil {
		return nil
	}
	return m
}

// namespaceValue is the Namespace as the API server gives it to
// conditions: metadata (without managed fields), spec and status.
func namespaceValue(m map[string]any) (any, error) {
	if m == nil {
		return nil, nil
	}
	var ns corev1.Namespace
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &ns); err != nil {
		return nil, fmt.Errorf("namespaceObject: %w", err)
	}
	return common.SchemalessTypedToVal(plugincel.CreateNamespaceObject(&ns)), nil
}

// requestValue is the request as conditions read it: the admission
// request's JSON without its objects, built field by field (a reflective
// conversion costs a hundred allocations), where userInfo.username is
// always present (empty for the unnamed user of the CLI), so that a
// condition on the caller's name reads "" instead of failing, and dryRun
// too (false unless set), as the API server gives it to its policies.
func requestValue(req *admissionv1.AdmissionRequest) (map[string]any, error) {
	user := map[string]any{"username": req.UserInfo.Username}
	if req.UserInfo.UID != "" {
		user["uid"] = req.UserInfo.UID
	}
	if len(req.UserInfo.Groups) > 0 {
		user["groups"] = texts(req.UserInfo.Groups)
	}
	if len(req.UserInfo.Extra) > 0 {
		extra := make(map[string]any, len(req.UserInfo.Extra))
		for k, v := range req.UserInfo.Extra {
			extra[k] = texts(v)
		}
		user["extra"] = extra
	}
	m := map[string]any{
		"uid":       string(req.UID),
		"kind":      map[string]any{"group": req.Kind.Group, "version": req.Kind.Version, "kind": req.Kind.Kind},
		"resource":  map[string]any{"group": req.Resource.Group, "version": req.Resource.Version, "resource": req.Resource.Resource},
		"operation": string(req.Operation),
		"userInfo":  user,
		"dryRun":    req.DryRun != nil && *req.DryRun,
	}
	if req.RequestKind != nil {
		m["requestKind"] = map[string]any{"group": req.RequestKind.Group, "version": req.RequestKind.Version, "kind": req.RequestKind.Kind}
	}
	if req.RequestResource != nil {
		m["requestResource"] = map[string]any{"group": req.RequestResource.Group, "version": req.RequestResource.Version, "resource": req.RequestResource.Resource}
	}
	setText(m, "subResource", req.SubResource)
	setText(m, "requestSubResource", req.RequestSubResource)
	setText(m, "name", req.Name)
	setText(m, "namespace", req.Namespace)
	if len(req.Options.Raw) > 0 {
		var opts any
		if err := json.Unmarshal(req.Options.Raw, &opts); err != nil {
			return nil, fmt.Errorf("request.options: %w", err)
		}
		m["options"] = opts
	}
	return m, nil
}

// texts is a list of texts as CEL reads JSON.
func texts(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// setText sets m[key] to a text that is not empty (omitempty in JSON).
func setText(m map[string]any, key, text string) {
	if text != "" {
		m[key] = text
	}
}
