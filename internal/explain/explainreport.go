package explain

import (
	"cmp"
	"slices"
	"strconv"

	yaml "go.yaml.in/yaml/v3"

	"kpatch.dev/kpatch/internal/listalign"
	"kpatch.dev/kpatch/internal/yamledit"
	"kpatch.dev/kpatch/pkg/diff"
	"kpatch.dev/kpatch/pkg/kpatch"
)

// Report is the output of kpatch explain, the schema of -o json
// and -o yaml (docs/explain.md).
type Report struct {
	Objects []*ObjectReport `json:"objects" yaml:"objects"`
}

// The results of one file on one object (FileReport.Result).
const (
	Patched   = "patched"   // the file changed the object
	Unchanged = "unchanged" // the file matched the object and changed nothing
	Failed    = "failed"    // the file failed on the object and left it as it was
	Unmatched = "unmatched" // no section's target matches the object
	Disabled  = "disabled"  // the file's enabled: metadata is false
	// WouldPatch is a file in audit mode that would have changed the
	// object; its changes are those it would have made, the object is
	// left as it was.
	WouldPatch = "would-patch"
	Unmet      = "unmet" // the file's conditions (# kpatch:when:) leave it out of the object
)

// ObjectReport is what the files did to one object, file by file in the
// order they applied.
type ObjectReport struct {
	APIVersion string `json:"apiVersion" yaml:"apiVersion"`
	Kind       string `json:"kind" yaml:"kind"`
	Namespace  string `json:"namespace,omitempty" yaml:"namespace,omitempty"`
	Name       string `json:"name" yaml:"name"`
	// GenerateName is the object's metadata.generateName when it has no
	// name yet (a controller's Pod at admission).
	GenerateName string        `json:"generateName,omitempty" yaml:"generateName,omitempty"`
	Files        []*FileReport `json:"files" yaml:"files"`
	// MissingRequired are the fields that files mark ${required} and that
	// the object does not hold once every file has applied.
	MissingRequired []*MissingField `json:"missingRequired,omitempty" yaml:"missingRequired,omitempty"`
	// Applied names the files that changed the object, in order, as
	// configmap/key@version (a file of the command line: its path), as
	// the webhook's audit annotation applied does; none when the object
	// comes out as it went in.
	Applied []string `json:"applied,omitempty" yaml:"applied,omitempty"`
	// WouldApply names the files in audit mode that would have changed
	// the object (the audit annotation would-apply).
	WouldApply []string `json:"wouldApply,omitempty" yaml:"wouldApply,omitempty"`
}

// MissingField is a field a file marks ${required} (at File:Line:Column)
// that no later file, nor the object, set.
type MissingField struct {
	Path   string `json:"path" yaml:"path"`
	File   string `json:"file" yaml:"file"`
	Line   int    `json:"line" yaml:"line"`
	Column int    `json:"column" yaml:"column"`
}

func NewObjectReport(ref kpatch.ObjectRef) *ObjectReport {
	return &ObjectReport{APIVersion: ref.APIVersion, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name, GenerateName: ref.GenerateName, Files: []*FileReport{}}
}

func (r *ObjectReport) Add(f *FileReport) { r.Files = append(r.Files, f) }

// FileReport is what one file did to one object.
type FileReport struct {
	File string `json:"file" yaml:"file"`
	// Position is the file's place in the order the files apply, from 1.
	Position int `json:"position" yaml:"position"`
	// Layer and Specificity are what placed the file there (a
	// replacements file ranks by its targets' selects).
	Layer       *int   `json:"layer,omitempty" yaml:"layer,omitempty"`
	Specificity string `json:"specificity,omitempty" yaml:"specificity,omitempty"`
	// Description is the file's description: metadata, if any.
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
	Result      string `json:"result" yaml:"result"`
	// Reason says why a disabled file does not apply: its enabled: and
	// the value it has ("enabled: ${features.canary} is false").
	Reason string `json:"reason,omitempty" yaml:"reason,omitempty"`
	// Conditions say what each condition (# kpatch:when:) of the file
	// gave on the object: held, did not hold, or its error.
	Conditions []string       `json:"conditions,omitempty" yaml:"conditions,omitempty"`
	Changes    []*FieldChange `json:"changes,omitempty" yaml:"changes,omitempty"`
	Errors     []string       `json:"errors,omitempty" yaml:"errors,omitempty"`
}

// FileOrder is where a file stands in the order the files apply: what
// every report of the file starts with.
type FileOrder struct {
	File        string
	Position    int
	Key         *kpatch.OrderKey
	Description string
}

func (o FileOrder) Report(result string) *FileReport {
	r := &FileReport{File: o.File, Position: o.Position, Description: o.Description, Result: result}
	if o.Key != nil {
		layer := o.Key.Layer
		r.Layer, r.Specificity = &layer, o.Key.Specificity.String()
	}
	return r
}

// The operations of a FieldChange, as RFC 6902 names them.
const (
	opAdd     = "add"
	opReplace = "replace"
	opRemove  = "remove"
)

// FieldChange is one field (or list item) a file added, replaced or
// removed: its kpatch path from the object's root, and its values before
// and after (Old absent for add, New absent for remove).
type FieldChange struct {
	Path string `json:"path" yaml:"path"`
	Op   string `json:"op" yaml:"op"`
	Old  *any   `json:"old,omitempty" yaml:"old,omitempty"`
	New  *any   `json:"new,omitempty" yaml:"new,omitempty"`
	// order sorts the changes in document order.
	order []orderStep
}

// MarshalYAML writes the values of the change as nodes that yaml.v3 reads
// back (yamledit.ValueNode): some strings it would print as block scalars
// that it cannot read.
func (c *FieldChange) MarshalYAML() (any, error) {
	out := struct {
		Path string     `yaml:"path"`
		Op   string     `yaml:"op"`
		Old  *yaml.Node `yaml:"old,omitempty"`
		New  *yaml.Node `yaml:"new,omitempty"`
	}{Path: c.Path, Op: c.Op}
	var err error
	if c.Old != nil {
		if out.Old, err = yamledit.ValueNode(*c.Old); err != nil {
			return nil, err
		}
	}
	if c.New != nil {
		out.New, err = yamledit.ValueNode(*c.New)
	}
	return out, err
}

// FieldChanges turns the changes of the diff from before to after into
// field changes, in document order: the order of the fields as kubectl
// prints the object (keys in alphabetical order, list items in list
// order; a removed item where it stood in before).
func FieldChanges(changes []diff.Change, before, after map[string]any) []*FieldChange {
	out := make([]*FieldChange, 0, len(changes))
	for i := range changes {
		c := &changes[i]
		path, fc := c.Path, &FieldChange{}
		switch c.Kind {
		case diff.DeleteValue:
			path = valuePath(path)
			fc.Op, fc.Old = opRemove, valueOf(c.Old)
			fc.order = documentOrder(before, path)
		case diff.InsertItem:
			path = withLast(path, c.Item)
			fc.Op, fc.New = opAdd, valueOf(c.Value)
			fc.order = documentOrder(after, path)
		default:
			fc.Op, fc.New = opAdd, valueOf(c.Value)
			if c.Replaces {
				fc.Op, fc.Old = opReplace, valueOf(c.Old)
			}
			fc.order = documentOrder(after, path)
		}
		fc.Path = path.String()
		out = append(out, fc)
	}
	slices.SortStableFunc(out, func(a, b *FieldChange) int { return compareOrder(a.order, b.order) })
	return out
}

// valuePath returns the path of what a delete removes: a field without
// its [delete], an item [delete=k=v] as the selector [k=v].
func valuePath(path kpatch.Path) kpatch.Path {
	last := path[len(path)-1]
	if last.Kind != kpatch.DeleteItems {
		return path[:len(path)-1]
	}
	if !last.ByMatch {
		return withLast(path, kpatch.Segment{Kind: kpatch.Index, Index: last.Index, Name: strconv.Itoa(last.Index)})
	}
	return withLast(path, kpatch.Segment{Kind: kpatch.Select, Key: last.Key, Value: last.Value})
}

// withLast returns path with its last segment replaced by seg, never
// sharing path's array.
func withLast(path kpatch.Path, seg kpatch.Segment) kpatch.Path {
	return append(slices.Clone(path[:len(path)-1]), seg)
}

func valueOf(v any) *any { return &v }

// orderStep is one step of a change's place in the object: a field by
// name, or a list item by index.
type orderStep struct {
	name  string
	index int
}

// documentOrder returns the place of path in obj. A step that obj does
// not have sorts by what the path says.
func documentOrder(obj any, path kpatch.Path) []orderStep {
	steps := make([]orderStep, 0, len(path))
	for _, seg := range path {
		switch seg.Kind {
		case kpatch.Field:
			steps = append(steps, orderStep{name: seg.Name})
			m, _ := obj.(map[string]any)
			obj = m[seg.Name]
		case kpatch.Index:
			steps = append(steps, orderStep{index: seg.Index})
			obj = itemAt(obj, seg.Index)
		case kpatch.Select:
			i := selectedIndex(obj, seg)
			steps = append(steps, orderStep{index: i})
			obj = itemAt(obj, i)
		}
	}
	return steps
}

// selectedIndex returns the index of the first item that the selector
// selects, or -1.
func selectedIndex(list any, seg kpatch.Segment) int {
	l, _ := list.([]any)
	if len(seg.Key) != 1 {
		return -1
	}
	return slices.IndexFunc(l, func(it any) bool {
		text, ok := listalign.KeyText(it, seg.Key[0])
		return ok && text == seg.Value
	})
}

func itemAt(list any, i int) any {
	if l, ok := list.([]any); ok && i >= 0 && i < len(l) {
		return l[i]
	}
	return nil
}

func compareOrder(a, b []orderStep) int {
	for i := range min(len(a), len(b)) {
		if c := cmp.Or(cmp.Compare(a[i].name, b[i].name), cmp.Compare(a[i].index, b[i].index)); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}
