package schema

import (
	"reflect"
	"strconv"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The labels and annotations of every object's metadata are maps of
// strings that the API server also validates: a key is a qualified name
// (an optional DNS subdomain prefix and a name of at most 63
// characters), a label's value at most 63 characters of a restricted
// alphabet, and the annotations together at most 256 KiB. A result that
// breaks them is refused, whatever its kind.

var objectMetaType = reflect.TypeFor[metav1.ObjectMeta]()

// metadataMap is the node of metadata.labels or metadata.annotations.
type metadataMap struct {
	*goType // map[string]string
	labels  bool
}

var (
	labelsNode      = &metadataMap{goType: typeOf(reflect.TypeFor[map[string]string]()), labels: true}
	annotationsNode = &metadataMap{goType: typeOf(reflect.TypeFor[map[string]string]())}
)

// metadataField is the node of a field of ObjectMeta that the API
// server validates beyond its type, or nil.
func metadataField(name string) node {
	switch name {
	case "labels":
		return labelsNode
	case "annotations":
		return annotationsNode
	}
	return nil
}

// keyProblem is the problem of a key of the map, "" when the API server
// takes it.
func (n *metadataMap) keyProblem(k string) string {
	if isQualifiedName(k, !n.labels) {
		return ""
	}
	if n.labels {
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			return strconv.Quote(k) + " is not a valid label key: " + strings.Join(msgs, "; ")
		}
		return ""
	}
	if msgs := validation.IsQualifiedName(strings.ToLower(k)); len(msgs) > 0 {
		return strconv.Quote(k) + " is not a valid annotation key: " + strings.Join(msgs, "; ")
	}
	return ""
}

// mapProblem is the problem of the whole map: annotations larger than
// the API server keeps.
func (n *metadataMap) mapProblem(m map[string]any) string {
	if n.labels {
		return ""
	}
	size := 0
	for k, v := range m {
		s, _ := v.(string)
		size += len(k) + len(s)
	}
	if size > apivalidation.TotalAnnotationSizeLimitB {
		return "the annotations take " + strconv.Itoa(size) + " bytes, more than the " + strconv.Itoa(apivalidation.TotalAnnotationSizeLimitB) + " the API server keeps"
	}
	return ""
}

func (n *metadataMap) elem() node {
	if n.labels {
		return labelValueNode
	}
	return n.goType.elem()
}

// labelValue is the node of a label's value.
type labelValue struct{ *goType }

var labelValueNode = &labelValue{goType: typeOf(reflect.TypeFor[string]())}

func (n *labelValue) check(v any) string {
	if msg := n.goType.check(v); msg != "" {
		return msg
	}
	if msgs := validation.IsValidLabelValue(v.(string)); len(msgs) > 0 {
		return strconv.Quote(v.(string)) + " is not a valid label value: " + strings.Join(msgs, "; ")
	}
	return ""
}

// checkedMap is a map node whose keys, and whole, the API server checks
// beyond their type.
type checkedMap interface {
	keyProblem(k string) string
	mapProblem(m map[string]any) string
}

var _ checkedMap = (*metadataMap)(nil)
