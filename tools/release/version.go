package main

import (
	"fmt"
	"regexp"
	"strings"
)

// semver is a release version: v, then a semantic version's
// MAJOR.MINOR.PATCH (no leading zeros) with an optional pre-release of
// dot-separated identifiers (a numeric one without leading zeros).
var semver = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)` +
	`(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?$`)

// CheckVersion returns an error when version is not a release version:
// vMAJOR.MINOR.PATCH with an optional pre-release (v0.2.0, v0.3.0-rc.1).
// Build metadata (+...) is refused: the version without its v is the
// image's tag, and a tag cannot hold a +.
func CheckVersion(version string) error {
	if strings.Contains(version, "+") {
		return fmt.Errorf("version %q is not vMAJOR.MINOR.PATCH[-PRERELEASE]: build metadata (+...) cannot be part of an image tag", version)
	}
	if !semver.MatchString(version) {
		return fmt.Errorf("version %q is not vMAJOR.MINOR.PATCH[-PRERELEASE]", version)
	}
	return nil
}
