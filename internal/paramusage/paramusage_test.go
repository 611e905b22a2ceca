package paramusage

import (
	"strings"
	"testing"

	"kpatch.dev/kpatch/internal/lint"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/parameters"
)

func TestTableAndReport(t *testing.T) {
	schema, err := parameters.Parse("parameters.yaml", []byte("parameters:\n- {name: image, type: string, required: true, description: the image}\n- {name: replicas, type: integer, default: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := kpatch.ParseAny("web.kpatch", []byte("[deployment.web]\nimage: ${values.image}\nlabels.team: ${values.team}\n"))
	if err != nil {
		t.Fatal(err)
	}
	refs := References([]*kpatch.File{f})
	var b strings.Builder
	if err := Table(&b, schema, refs); err != nil {
		t.Fatal(err)
	}
	want := `NAME       TYPE      DEFAULT   REQUIRED   DESCRIPTION   USED BY
image      string    <none>    yes        the image     web.kpatch
replicas   integer   2         no                       <none>
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	var found lint.Findings
	Report(schema, "parameters.yaml", refs, &found)
	b.Reset()
	found.Print(&b)
	want = `parameters.yaml:3:3: warning: parameter "replicas" is declared, and no patch file reads ${values.replicas}
web.kpatch:3:14: warning: ${values.team} reads no parameter declared in parameters.yaml
`
	if found.Failed() || b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
