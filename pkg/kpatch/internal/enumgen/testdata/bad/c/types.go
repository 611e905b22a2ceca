package c

import "strings"

// Mode is an enum with a constant the generator cannot work out.
// +enum
type Mode string

const ModeJoined Mode = Mode(strings.Repeat("a", 2))
