// Package varflags reads the variables that patch files read from the
// --values, --set and --set-string flags, checked and typed against a
// parameter schema (--parameters) when there is one, as the registry
// does.
package varflags
