// Package explain is the report of kpatch explain: for each object, every
// patch file in the order the files apply and what it did (the fields it
// added, replaced or removed, by path, in document order; its errors), and
// the report printed as text, JSON or YAML.
package explain
