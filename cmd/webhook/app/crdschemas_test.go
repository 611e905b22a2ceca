package app

import (
	"strings"
	"testing"
)

func TestCRDSchemaFlags(t *testing.T) {
	o := parse(t)
	s, err := o.parse()
	if err != nil {
		t.Fatal(err)
	}
	if !o.CRDSchemas || s.crdSchemaBytes != 64<<20 {
		t.Errorf("defaults: %v %d", o.CRDSchemas, s.crdSchemaBytes)
	}
	o = parse(t, "--crd-schemas=false", "--max-crd-schema-size=0")
	if s, err = o.parse(); err != nil || o.CRDSchemas || s.crdSchemaBytes != 0 {
		t.Errorf("off, no limit: %v %d %v", o.CRDSchemas, s.crdSchemaBytes, err)
	}
	for args, want := range map[string]string{
		"--max-crd-schema-size=big":  `--max-crd-schema-size: "big" is not a quantity`,
		"--max-crd-schema-size=-1Mi": "--max-crd-schema-size: -1Mi is negative",
	} {
		if err := parse(t, args).Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}
