// Package yamledit writes a YAML document again after its object
// changed, keeping what the user wrote: every byte that the change did
// not reach stays (comments, key order, quoting, the spelling of scalars,
// blank lines); only the changed values, entries and list items are
// written anew, in the indentation of the document. Where the text cannot
// be edited in place, the node tree with the changes merged in is printed
// instead, and as a last resort the object afresh: every candidate is
// read back and must give the changed object.
package yamledit
