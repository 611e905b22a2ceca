package admission

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"kpatch.dev/kpatch/pkg/kpatch"
)

// Event reasons, on the registry ConfigMap of the file concerned.
const (
	// ReasonPatchCompileFailed: files that stopped compiling (Warning).
	ReasonPatchCompileFailed = "PatchCompileFailed"
	// ReasonPatchCompiled: files that compile again (Normal).
	ReasonPatchCompiled = "PatchCompiled"
	// ReasonRegistryLimitExceeded: files refused by a limit (Warning).
	ReasonRegistryLimitExceeded = "RegistryLimitExceeded"
	// ReasonPatchConflict: new conflicts that a file of the ConfigMap
	// wins (Warning).
	ReasonPatchConflict = "PatchConflict"
	// ReasonInvalidLayer: a ConfigMap whose label kpatch.dev/layer is not
	// an integer; its files do not apply (Warning).
	ReasonInvalidLayer = "InvalidLayer"
	// ReasonLastGoodNotStored: files whose current version the last
	// good store cannot hold (Warning).
	ReasonLastGoodNotStored = "LastGoodNotStored"
)

// maxNoteBytes is the most an Event's note may hold (events.k8s.io/v1).
const maxNoteBytes = 1024

// maxEventItems is how many files or conflicts one Event lists; it counts
// the rest.
const maxEventItems = 3

// EventNote joins items into one note: the first maxEventItems, a count
// of the rest, within maxNoteBytes.
func EventNote(header string, items []string) string {
	lines := []string{}
	if header != "" {
		lines = append(lines, header)
	}
	shown := items
	if len(shown) > maxEventItems {
		shown = shown[:maxEventItems]
	}
	lines = append(lines, shown...)
	if n := len(items) - len(shown); n > 0 {
		lines = append(lines, fmt.Sprintf("and %d more", n))
	}
	return truncateNote(strings.Join(lines, "\n"))
}

// truncateNote cuts a note to maxNoteBytes, on a character boundary,
// marking the cut.
func truncateNote(s string) string {
	if len(s) <= maxNoteBytes {
		return s
	}
	const mark = " [...]"
	cut := maxNoteBytes - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// errorSummary shortens a compile error for an Event: its first lines.
func errorSummary(err error) string {
	var list kpatch.ErrorList
	if errors.As(err, &list) && len(list) > 3 {
		lines := make([]string, 0, 4)
		for _, e := range list[:3] {
			lines = append(lines, e.Error())
		}
		lines = append(lines, fmt.Sprintf("and %d more", len(list)-3))
		return strings.Join(lines, "\n")
	}
	return err.Error()
}
