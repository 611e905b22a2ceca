package registry

import (
	"kpatch.dev/kpatch/pkg/apply"
	"kpatch.dev/kpatch/pkg/kpatch"
	"kpatch.dev/kpatch/pkg/replacement"
)

// Kind is one kind of registry file: how a file of it is recognised from
// its name and content, and how it compiles into the apply.File that the
// loop applies. Kinds is the one table of them: the compiler of registry
// ConfigMaps and the files given by path (CompileFiles) both read it, and
// nothing else decides a file's kind. A new kind is a row here and an
// apply.File of its own; everything else reads it through apply.File.
type Kind struct {
	// Name names the kind in messages and docs.
	Name string
	// recognizes reports whether a file named name (a ConfigMap key, a
	// path) with content src is of the kind.
	recognizes func(name, src string) bool
	// compile compiles one file of the kind.
	compile func(s *fileSource) (compiledFile, error)
}

// fileSource is one file to compile: its name, content, owner and
// values.
type fileSource struct {
	ref FileRef
	src string
	// values are what its ${...} read; never nil.
	values *parsedValues
	// allow is the allowlist of kinds a tenant's file (ref.Namespace set)
	// is held to.
	allow *TenantKinds
}

// compiledFile is a file compiled by its kind.
type compiledFile struct {
	file apply.File
	// patch is the compiled patch of a patch file, which the analyses of
	// patch files read (conflicts, lint); nil for another kind.
	patch *kpatch.Patch
	// params are how its values depend on the object; nil when they do
	// not.
	params *fileValues
}

// Kinds are the kinds of registry files, in the order they are asked:
// the first that recognises a file is its kind.
var Kinds = []Kind{
	{
		// a YAML file (.yaml, .yml) that is a map whose key is
		// replacements (kustomize's replacements: list,
		// docs/replacements.md)
		Name: "replacements",
		recognizes: func(name, src string) bool {
			return kpatch.IsYAMLFile(name) && replacement.IsReplacementsFile([]byte(src))
		},
		compile: compileReplacements,
	},
	{
		// a .kpatch file, or any other YAML file: a YAML patch file
		Name:       PatchKind,
		recognizes: func(string, string) bool { return true },
		compile:    compilePatch,
	},
}

// KindOf names the kind of the file named name with content src
// (Kind.Name).
func KindOf(name string, src []byte) string { return kindOf(name, string(src)).Name }

// PatchKind is the name of the kind of .kpatch and YAML patch files.
const PatchKind = "patch"

// kindOf is the kind of the file named name with content src.
func kindOf(name, src string) *Kind {
	for i := range Kinds {
		if Kinds[i].recognizes(name, src) {
			return &Kinds[i]
		}
	}
	return &Kinds[len(Kinds)-1]
}

// compileFile compiles one file by its kind; a tenant's file is held to
// its namespace and the allowlist (tenant.go).
func compileFile(s *fileSource) (compiledFile, error) {
	c, err := kindOf(s.ref.name(), s.src).compile(s)
	if err != nil {
		return compiledFile{}, err
	}
	if s.ref.Namespace != "" {
		c.file = newTenantFile(c.file, s.ref.Namespace, s.allow)
	}
	if c.params != nil {
		c.params.file = c.file // bound for an object as the registry holds it
	}
	return c, nil
}

// compilePatch parses and compiles a patch file and binds it to its
// values.
func compilePatch(s *fileSource) (compiledFile, error) {
	if s.values.err != nil {
		return compiledFile{}, s.values.err
	}
	var p *kpatch.Patch
	var err error
	if s.ref.Namespace != "" {
		p, err = compileTenant(s.ref, s.src, s.allow)
	} else {
		p, err = kpatch.ParseAndCompile(s.ref.String(), []byte(s.src))
	}
	if err != nil {
		return compiledFile{}, err
	}
	// an undefined or mistyped variable is a compile problem of the file
	bound, params, err := s.values.bind(p)
	if err != nil {
		return compiledFile{}, err
	}
	return compiledFile{file: apply.PatchFile{Patch: bound}, patch: bound, params: params}, nil
}

// compileReplacements parses a replacements file; a tenant's is held to
// its namespace (tenant.go) and reads the sources of its own namespace
// only.
func compileReplacements(s *fileSource) (compiledFile, error) {
	r, err := replacement.Parse(s.ref.String(), []byte(s.src))
	if err != nil {
		return compiledFile{}, err
	}
	r.SetFieldTypes(kpatch.ReplacementFieldType)
	if s.ref.Namespace != "" {
		if err := tenantSelects(s.ref, r.HoldToNamespace(s.ref.Namespace), r.TargetWrites(), s.allow); err != nil {
			return compiledFile{}, err
		}
	}
	return compiledFile{file: &apply.ReplacementsFile{Replacements: r, Tenant: s.ref.Namespace != ""}}, nil
}
