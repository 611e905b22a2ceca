// Package kpatchfmt prints a .kpatch file in its canonical layout (that
// of the engine's printer) with every comment kept, and refuses a file
// whose formatted text would not parse back to the same patches.
package kpatchfmt
