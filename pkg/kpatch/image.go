package kpatch

import (
	"strings"

	"github.com/distribution/reference"
)

// imageRef is a container image reference split into the parts that
// image.registry, image.repository, image.tag and image.digest set.
type imageRef struct {
	registry, path, tag, digest string
}

// splitImage splits a reference without judging it, so that a reference
// being built part by part can pass through incomplete states. The
// registry is the first component when it holds '.' or ':', is
// "localhost" or has upper case: the rule Docker uses.
func splitImage(s string) imageRef {
	var r imageRef
	if i := strings.IndexByte(s, '@'); i >= 0 {
		s, r.digest = s[:i], s[i+1:]
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 && !strings.Contains(s[i:], "/") {
		s, r.tag = s[:i], s[i+1:]
	}
	r.registry, r.path = splitRegistry(s)
	return r
}

func splitRegistry(name string) (registry, path string) {
	i := strings.IndexByte(name, '/')
	if i < 0 {
		return "", name
	}
	first := name[:i]
	if strings.ContainsAny(first, ".:") || first == "localhost" || strings.ToLower(first) != first {
		return first, name[i+1:]
	}
	return "", name
}

func (r imageRef) name() string {
	if r.registry == "" {
		return r.path
	}
	return r.registry + "/" + r.path
}

func (r imageRef) String() string {
	s := r.name()
	if r.tag != "" {
		s += ":" + r.tag
	}
	if r.digest != "" {
		s += "@" + r.digest
	}
	return s
}

// setImageRefPart sets one part of the reference old. An empty text
// removes the part. The result must be a valid reference once it has a
// repository.
func setImageRefPart(old, part, text string) (string, *problem) {
	r := splitImage(old)
	switch part {
	case "registry":
		r.registry = text
	case "repository":
		r.registry, r.path = splitRegistry(text)
	case "tag":
		r.tag = text
	case "digest":
		r.digest = text
	}
	out := r.String()
	if r.path == "" {
		if r.registry != "" {
			return "", errorf(ErrImage, "image %q has a registry but no repository", out)
		}
		return out, nil
	}
	if _, err := reference.Parse(out); err != nil {
		return "", errorf(ErrImage, "setting image.%s to %q gives %q: %v", part, text, out, err)
	}
	return out, nil
}
