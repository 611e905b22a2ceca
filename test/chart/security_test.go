package chart

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const securityDoc = "../../docs/security.md"

// readerSubject stands for each subject of metrics.reader.subjects in
// the table.
const readerSubject = "each-metrics-reader-subject"

// setting is one value of a documented mode: its path in values.yaml,
// the value rendered, and how the table shows it.
type setting struct {
	path  string
	value any
	shown string
}

// docModes are the modes the RBAC table covers: the defaults, then every
// value that changes what the chart grants, one at a time.
var docModes = [][]setting{
	nil,
	{{"leaderElection.enabled", false, "`leaderElection.enabled: false`"}},
	{{"tls.certManager.enabled", true, "`tls.certManager.enabled: true`"}},
	{{"webhook.manageRules", false, "`webhook.manageRules: false`"}},
	{{"webhook.crdSchemas", false, "`webhook.crdSchemas: false`"}},
	{{"webhook.pathToken.enabled", false, "`webhook.pathToken.enabled: false`"}},
	{{"webhook.namespaceSources", true, "`webhook.namespaceSources: true`"}},
	{{"registry.tenants.enabled", true, "`registry.tenants.enabled: true`"}},
	{{"webhook.eventsOnPatch", true, "`webhook.eventsOnPatch: true`"}},
	{{"drift.enabled", true, "`drift.enabled: true`"}},
	{
		{"drift.enabled", true, "`drift.enabled: true`"},
		{"drift.reports", "policyreport", "`drift.reports: policyreport`"},
	},
	{
		{"drift.enabled", true, "`drift.enabled: true`"},
		{"drift.reconcile.enabled", true, "`drift.reconcile.enabled: true`"},
	},
	{{"metrics.reader.subjects", []any{map[string]any{"kind": "Group", "name": readerSubject}}, "`metrics.reader.subjects`"}},
	{{"metrics.serviceMonitor.enabled", true, "`metrics.serviceMonitor.enabled: true`"}},
	{
		{"metrics.serviceMonitor.enabled", true, "`metrics.serviceMonitor.enabled: true`"},
		{"metrics.serviceMonitor.credentials.secretName", "prometheus-token", "`metrics.serviceMonitor.credentials.secretName` set"},
	},
}

// values builds the chart values of a mode.
func values(mode []setting) map[string]any {
	out := map[string]any{}
	for _, s := range mode {
		m := out
		keys := strings.Split(s.path, ".")
		for _, k := range keys[:len(keys)-1] {
			next, ok := m[k].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[k] = next
			}
			m = next
		}
		m[keys[len(keys)-1]] = s.value
	}
	return out
}

func shown(mode []setting) string {
	if len(mode) == 0 {
		return "no values"
	}
	var parts []string
	for _, s := range mode {
		parts = append(parts, s.shown)
	}
	return strings.Join(parts, " and ")
}

// grantRow is one rule of a role as granted to one subject: the columns
// of the table before "turned on by" and "why".
type grantRow struct {
	subject, role, groups, resources, names, verbs, scope string
}

func (g grantRow) cells() []string {
	return []string{g.subject, g.role, g.groups, g.resources, g.names, g.verbs, g.scope}
}

func (g grantRow) key() string { return strings.Join(g.cells(), " | ") }

func code(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "`" + s + "`"
	}
	return strings.Join(out, ", ")
}

// grants lists what the rendered objects grant, binding by binding and
// rule by rule. A binding to a role the chart does not render fails the
// test: the table could not say what it grants.
func grants(t *testing.T, objs []*unstructured.Unstructured) []grantRow {
	t.Helper()
	roles := all[rbacv1.Role](t, objs, "Role")
	clusterRoles := all[rbacv1.ClusterRole](t, objs, "ClusterRole")
	type binding struct {
		kind      string
		namespace string
		roleRef   rbacv1.RoleRef
		subjects  []rbacv1.Subject
	}
	var bindings []binding
	for _, b := range all[rbacv1.RoleBinding](t, objs, "RoleBinding") {
		bindings = append(bindings, binding{"RoleBinding", b.Namespace, b.RoleRef, b.Subjects})
	}
	for _, b := range all[rbacv1.ClusterRoleBinding](t, objs, "ClusterRoleBinding") {
		bindings = append(bindings, binding{"ClusterRoleBinding", "", b.RoleRef, b.Subjects})
	}
	var out []grantRow
	for _, b := range bindings {
		var rules []rbacv1.PolicyRule
		switch b.roleRef.Kind {
		case "Role":
			r := roles[b.roleRef.Name]
			if r == nil {
				t.Fatalf("%s binds Role %s, which the chart does not render", b.kind, b.roleRef.Name)
			}
			rules = r.Rules
		case "ClusterRole":
			r := clusterRoles[b.roleRef.Name]
			if r == nil {
				t.Fatalf("%s binds ClusterRole %s, which the chart does not render", b.kind, b.roleRef.Name)
			}
			rules = r.Rules
		}
		scope := "cluster"
		if b.kind == "RoleBinding" {
			scope = "namespace `" + b.namespace + "`"
		}
		for _, s := range b.subjects {
			subject := s.Kind + " `" + s.Name + "`"
			if s.Namespace != "" {
				subject = s.Kind + " `" + s.Namespace + "/" + s.Name + "`"
			}
			if s.Name == readerSubject {
				subject = "each of `metrics.reader.subjects`"
			}
			for _, r := range rules {
				g := grantRow{subject: subject, role: b.roleRef.Kind + " `" + b.roleRef.Name + "`", verbs: strings.Join(r.Verbs, ", "), scope: scope, names: "any"}
				groups := make([]string, len(r.APIGroups))
				for i, group := range r.APIGroups {
					groups[i] = group
					if group == "" {
						groups[i] = "core"
					}
				}
				g.groups = strings.Join(groups, ", ")
				g.resources = code(append(slices.Clone(r.Resources), r.NonResourceURLs...))
				if len(r.NonResourceURLs) > 0 {
					g.groups = "(URL)"
				}
				if len(r.ResourceNames) > 0 {
					g.names = code(r.ResourceNames)
				}
				out = append(out, g)
			}
		}
	}
	// namespaced grants first, then by subject and role; rules keep
	// their order within a role
	slices.SortStableFunc(out, func(a, b grantRow) int {
		for _, c := range [][2]string{{b.scope[:1], a.scope[:1]}, {a.subject, b.subject}, {a.role, b.role}} {
			if d := strings.Compare(c[0], c[1]); d != 0 {
				return d
			}
		}
		return 0
	})
	return out
}

// turnedOnBy says which modes render a row: always, by default but not in
// some modes, or only in some.
func turnedOnBy(in []bool) string {
	var with, without []string
	for i, mode := range docModes {
		if i == 0 {
			continue
		}
		if in[i] {
			with = append(with, shown(mode))
		} else {
			without = append(without, shown(mode))
		}
	}
	switch {
	case in[0] && len(without) == 0:
		return "always"
	case in[0]:
		return "default; not with " + strings.Join(without, ", ")
	default:
		// modes beyond the one that turns it on: those lacking it are said
		out := strings.Join(with, ", or ")
		var lacking []string
		for i, mode := range docModes {
			if in[i] || len(mode) < 2 {
				continue
			}
			for j, other := range docModes {
				if in[j] && len(other) == 1 && slices.Contains(mode, other[0]) {
					lacking = append(lacking, shown(mode[1:]))
				}
			}
		}
		if len(lacking) > 0 {
			out += ", unless " + strings.Join(lacking, ", ")
		}
		return out
	}
}

// ranges writes row numbers as ranges: 1–4, 7.
func ranges(rows []int) string {
	var parts []string
	for i := 0; i < len(rows); {
		j := i
		for j+1 < len(rows) && rows[j+1] == rows[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", rows[i], rows[j]))
		} else {
			parts = append(parts, strconv.Itoa(rows[i]))
		}
		i = j + 1
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

var (
	tableBlock = regexp.MustCompile(`(?s)<!-- BEGIN rbac-table[^>]*-->\n(.*?)<!-- END rbac-table -->\n`)
	tableRow   = regexp.MustCompile(`^\| [0-9]+ \| (.*) \|$`)
)

// whys reads the why column of the table in the document, by row.
func whys(doc string) map[string]string {
	out := map[string]string{}
	m := tableBlock.FindStringSubmatch(doc)
	if m == nil {
		return out
	}
	for _, line := range strings.Split(m[1], "\n") {
		cells := tableRow.FindStringSubmatch(line)
		if cells == nil {
			continue
		}
		c := strings.Split(cells[1], " | ")
		if len(c) == 9 {
			out[strings.Join(c[:7], " | ")] = c[8]
		}
	}
	return out
}

// TestSecurityDocListsEveryGrant: the RBAC table of docs/security.md is
// exactly what the chart grants, mode by mode (who, which role, API groups,
// resources, names, verbs, scope, and the values that turn it on); only
// the why column is written by hand, and no row may lack one. -update
// rewrites the table from the chart, keeping the whys.
func TestSecurityDocListsEveryGrant(t *testing.T) {
	src, err := os.ReadFile(securityDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	if !tableBlock.MatchString(doc) {
		t.Fatalf("%s: no <!-- BEGIN rbac-table --> ... <!-- END rbac-table --> block", securityDoc)
	}
	var rows []grantRow
	in := map[string][]bool{}
	for i, mode := range docModes {
		for _, g := range grants(t, render(t, values(mode))) {
			if in[g.key()] == nil {
				in[g.key()] = make([]bool, len(docModes))
				rows = append(rows, g)
			}
			in[g.key()][i] = true
		}
	}
	known := whys(doc)
	var b strings.Builder
	b.WriteString("<!-- BEGIN rbac-table: generated from the chart by test/chart (go test -run TestSecurityDocListsEveryGrant -update); write only the why column -->\n")
	b.WriteString("| # | subject | kind | API groups | resources | resource names | verbs | scope | turned on by | why |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	var missing []string
	for i, g := range rows {
		why := known[g.key()]
		if why == "" || why == "TODO" {
			why = "TODO"
			missing = append(missing, strconv.Itoa(i+1))
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", i+1, strings.Join(g.cells(), " | "), turnedOnBy(in[g.key()]), why)
	}
	b.WriteString("\nMode by mode (each row of the table above that the mode renders):\n\n")
	b.WriteString("| values | rows granted |\n|---|---|\n")
	for i, mode := range docModes {
		var nums []int
		for n, g := range rows {
			if in[g.key()][i] {
				nums = append(nums, n+1)
			}
		}
		fmt.Fprintf(&b, "| %s | %s |\n", shown(mode), ranges(nums))
	}
	b.WriteString("<!-- END rbac-table -->\n")
	want := tableBlock.ReplaceAllLiteralString(doc, b.String())
	if *update && want != doc {
		if err := os.WriteFile(securityDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		doc = want
	}
	if doc != want {
		t.Errorf("%s: the RBAC table differs from what the chart grants; run go test -run TestSecurityDocListsEveryGrant -update in test/chart and explain new rows. Want:\n%s", securityDoc, b.String())
	}
	if len(missing) > 0 {
		t.Errorf("%s: rows %s have no why", securityDoc, strings.Join(missing, ", "))
	}
}
