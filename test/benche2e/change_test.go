package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckChange(t *testing.T) {
	original, err := os.ReadFile(filepath.Join("..", "..", deploymentFile))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(original), `"cpu": "100m"`, `"cpu": "250m"`, 1)
	changed = strings.Replace(changed, `"annotations": {`, `"annotations": {"example.com/owner": "team-a", `, 1)
	half := strings.Replace(string(original), `"cpu": "100m"`, `"cpu": "250m"`, 1)
	for _, c := range []struct {
		name    string
		body    string
		changed bool
		ok      bool
	}{
		{"original, unchanged expected", string(original), false, true},
		{"original, change expected", string(original), true, false},
		{"changed, change expected", changed, true, true},
		{"changed, unchanged expected", changed, false, false},
		{"cpu only, change expected", half, true, false},
		{"cpu only, unchanged expected", half, false, false},
	} {
		if err := checkChange([]byte(c.body), c.changed); (err == nil) != c.ok {
			t.Errorf("%s: got %v", c.name, err)
		}
	}
}
