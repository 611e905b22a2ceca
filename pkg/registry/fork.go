package registry

// Fork returns a compiler that starts from what c compiled last and that
// builds without changing c: a build of a candidate registry (the
// registry with one ConfigMap as an edit would leave it) compiles only
// what differs from c's last build, and shares c's compiled versions,
// which are immutable, so that it costs a one-key edit's sync and no
// second copy of the registry. A fork reports as a first build would
// (its Problems are of no use) and stores nothing.
func (c *Compiler) Fork() *Compiler {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := &Compiler{
		Limits:            c.Limits,
		RegistryNamespace: c.RegistryNamespace,
		Tenancy:           c.Tenancy,
		generation:        c.generation,
		// replaced whole by a build, never written in place
		values:   c.values,
		cmValues: c.cmValues,
	}
	if c.files != nil {
		f.files = make(map[FileRef]*fileState, len(c.files))
		for ref, st := range c.files {
			cp := *st
			f.files[ref] = &cp
		}
	}
	return f
}
