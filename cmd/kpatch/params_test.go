package main

import (
	"strings"
	"testing"
)

var paramsFiles = map[string]string{
	"reg/parameters.yaml": `parameters:
- {name: image, type: string, required: true, description: "container
    image"}
- {name: replicas, type: integer, default: 2}
- {name: env, type: array, default: [{name: A}]}
- {name: canary, type: boolean, default: false}
`,
	"reg/web.kpatch":  "[deployment.web]\nreplicas: ${values.replicas}\nlabels.team: ${values.team}\n\n[deployment.web.containers.name=web]\nimage: \"${values.image}\"\n",
	"reg/side.yaml":   "- target: deployment.web\n  patch:\n    labels:\n      image: \"x-${values.image}-$${values.no}\"\n",
	"reg/values.yaml": "values:\n  image: x\n",
}

func TestParamsTable(t *testing.T) {
	code, stdout, stderr := runCLI(t, paramsFiles, "", "params", "reg")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `NAME       TYPE      DEFAULT          REQUIRED   DESCRIPTION       USED BY
image      string    <none>           yes        container image   reg/side.yaml,reg/web.kpatch
replicas   integer   2                no                           reg/web.kpatch
env        array     [{"name":"A"}]   no                           <none>
canary     boolean   false            no                           <none>
`
	if stdout != want {
		t.Errorf("got:\n%s\nwant:\n%s", stdout, want)
	}
	for _, w := range []string{
		`reg/parameters.yaml:5:3: warning: parameter "env" is declared, and no patch file reads ${values.env}`,
		`reg/parameters.yaml:6:3: warning: parameter "canary" is declared`,
		`reg/web.kpatch:3:14: warning: ${values.team} reads no parameter declared in reg/parameters.yaml`,
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q; want %q", stderr, w)
		}
	}
	if strings.Contains(stderr, "values.no") {
		t.Errorf("$${ is a literal, not a variable: %s", stderr)
	}
}

func TestParamsErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"params", "reg/web.kpatch"}, 1, "no parameter schema"},
		{[]string{"params", "--parameters", "reg/parameters.yaml", "reg"}, 2, "one parameter schema at a time"},
		{[]string{"params"}, 2, "expected the patch files"},
		{[]string{"params", "--parameters", "reg/web.kpatch", "reg/side.yaml"}, 1, "reg/web.kpatch:1:1"},
	} {
		code, _, stderr := runCLI(t, paramsFiles, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("kpatch %s: exit %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.want)
		}
	}
}

func TestApplyParameters(t *testing.T) {
	app := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - {name: web, image: y}\n"
	files := map[string]string{"app.yaml": app}
	for k, v := range paramsFiles {
		files[k] = v
	}
	files["reg/web.kpatch"] = "[deployment.web]\nreplicas: ${values.replicas}\n"
	code, stdout, stderr := runCLI(t, files, "", "apply", "--parameters", "reg/parameters.yaml", "--values", "reg/values.yaml",
		"--set-string", "values.replicas=4", "-p", "reg/web.kpatch", "-f", "app.yaml", "-o", "json")
	if code != 0 || !strings.Contains(stdout, `"replicas": 4`) {
		t.Errorf("exit %d, stderr %q; want the integer 4:\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = runCLI(t, files, "", "apply", "--parameters", "reg/parameters.yaml",
		"--set", "values.replicas=many", "--set", "values.nope=1", "-p", "reg/web.kpatch", "-f", "app.yaml")
	if code != 1 || stdout != "" {
		t.Errorf("exit %d, stdout %q; want 1 and nothing printed", code, stdout)
	}
	for _, w := range []string{`--set values.replicas: parameter "replicas"`, `--set values.nope: parameter "nope"`, `reg/parameters.yaml:2:3: parameter "image": required`} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q; want %q", stderr, w)
		}
	}
}

// TestParamsCountsWhatCELReads: a parameter read only as params in CEL is
// used by its file, for kpatch params and kpatch lint --parameters alike;
// params read by a computed key may read any parameter, so none is unused.
func TestParamsCountsWhatCELReads(t *testing.T) {
	files := map[string]string{
		"reg/parameters.yaml": "parameters:\n- {name: tier, type: string, default: silver}\n- {name: zone, type: string, default: a}\n",
		"reg/tier.kpatch":     "[deployment.web]\nlabels.tier: ${cel: params.tier}\n",
		"reg/any.kpatch":      "# kpatch:when: params[object.metadata.name] == 'on'\n[deployment.web]\nlabels.any: \"yes\"\n",
	}
	code, stdout, stderr := runCLI(t, files, "", "params", "reg")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"tier   string   silver    no                       reg/any.kpatch,reg/tier.kpatch", "zone   string   a         no                       reg/any.kpatch"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
	if strings.Contains(stderr, "warning") {
		t.Errorf("warnings: %s", stderr)
	}
	code, stdout, stderr = runCLI(t, files, "", "lint", "--parameters", "reg/parameters.yaml", "reg/tier.kpatch")
	if code != 0 || !strings.Contains(stdout, `parameter "zone" is declared`) || strings.Contains(stdout, `"tier"`) {
		t.Errorf("lint exit %d: %s%s", code, stdout, stderr)
	}
}
