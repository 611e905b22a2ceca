// Package paramusage relates a parameter schema (parameters.yaml) to the
// patch files that read it: the variables each file reads, the parameters
// declared and never read, the variables that read no declared
// parameter, and the table that kpatch params prints.
package paramusage
