package a

import other "k8s.io/api/b"

// Mode is an enum of this package.
// +enum
type Mode string

const (
	ModeOne   Mode = "One"
	ModeTwo        = Mode("Two")
	ModeThree Mode = other.Three
	ModeAgain Mode = "One"
	ModeFour       = Mode(modeFour)
)

const modeFour = "Four"

// Plain is a string type without the marker.
type Plain string

const PlainX Plain = "x"

// Kind is the enum of package b under another name.
type Kind = other.Kind

const KindExtra Kind = "Extra"
