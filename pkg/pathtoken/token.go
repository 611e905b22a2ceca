package pathtoken

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
)

// Key is the data key of the token in its Secret.
const Key = "token"

// Bounds of a token's length. A token made by NewToken has 43 characters (32
// random bytes); one written by hand needs MinLength at least, 192 bits of
// its alphabet.
const (
	MinLength = 32
	MaxLength = 128
)

// ErrInvalid is a token that cannot be one: too short, too long, or with
// a character outside the alphabet of URL path segments that need no
// escaping (A-Z, a-z, 0-9, '-', '_').
var ErrInvalid = errors.New("not a path token")

// NewToken returns a random token: 32 bytes of crypto/rand, base64url without
// padding (43 characters).
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails: the runtime ends the program first
	return base64.RawURLEncoding.EncodeToString(b)
}

// Check reports why s is not a token, wrapping ErrInvalid, or nil.
func Check(s string) error {
	if len(s) < MinLength || len(s) > MaxLength {
		return fmt.Errorf("%w: %d characters, not %d to %d", ErrInvalid, len(s), MinLength, MaxLength)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("%w: character %d is %q, not A-Z, a-z, 0-9, '-' or '_'", ErrInvalid, i+1, c)
		}
	}
	return nil
}
