package b

// Kind is an enum whose constants are in two packages.
// +enum
type Kind string

const KindA Kind = "A"

// Three is an untyped constant another package converts.
const Three = "Three"

// NotEnum says +enum in its text, not on a line of its own: +enum
type NotEnum string

const NotEnumY NotEnum = "y"
