package kpatch

import "strings"

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
	if r.registry == "" && r.tag == "" && r.digest == "" {
		return r.path
	}
	var b strings.Builder // one allocation, not one per part
	b.Grow(len(r.registry) + len(r.path) + len(r.tag) + len(r.digest) + 3)
	if r.registry != "" {
		b.WriteString(r.registry)
		b.WriteByte('/')
	}
	b.WriteString(r.path)
	if r.tag != "" {
		b.WriteByte(':')
		b.WriteString(r.tag)
	}
	if r.digest != "" {
		b.WriteByte('@')
		b.WriteString(r.digest)
	}
	return b.String()
}

// imagePartOf returns one part of a reference, "" when it has none.
func imagePartOf(ref, part string) string {
	r := splitImage(ref)
	switch part {
	case "registry":
		return r.registry
	case "repository":
		return r.name()
	case "tag":
		return r.tag
	case "digest":
		return r.digest
	}
	return ""
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
	if err := parseImage(out); err != nil {
		return "", errorf(ErrImage, "setting image.%s to %q gives %q: %v", part, text, out, err)
	}
	return out, nil
}

// checkImagePartText checks the text of one part on its own, so that a
// constant that can never be part of a reference is a compile-time
// problem. An empty text removes the part.
func checkImagePartText(part, text string) *problem {
	ok := true
	switch part {
	case "tag":
		ok = isTag(text)
	case "digest":
		ok = isDigestText(text)
	case "registry":
		ok = isDomain(text)
	case "repository":
		ok = isRepository(text)
	}
	if !ok && text != "" {
		return errorf(ErrImage, "%q is not a valid image %s", text, part)
	}
	return nil
}

// checkImagePart checks a plan's constant image part.
func (pl *plan) checkImagePart(val any) *problem {
	part, ok := pl.lastStep().(imagePartStep)
	if !ok || val == nil {
		return nil
	}
	text := pl.raw
	if text == "" {
		text, _ = scalarText(val)
	}
	return checkImagePartText(part.name, text)
}

// imageWrite is an image reference that a file set a part of: a map
// entry, and the entry that set it.
type imageWrite struct {
	m         map[string]any
	key       string
	line, col int
}

// checkImages checks the image references the file left without a
// repository since images[from] (setImageRefPart checked the others):
// once the file is done, each must be a valid reference (`image.tag: v1`
// alone on an item without an image is not).
func (a *applier) checkImages(from int, file string, ref *ObjectRef, errs ErrorList) ErrorList {
	for i, w := range a.images[from:] {
		if seenImage(a.images[from:from+i], w) {
			continue
		}
		s, ok := w.m[w.key].(string)
		if !ok {
			continue
		}
		if err := validImage(s); err != nil {
			errs = append(errs, err.at(w.line, w.col).applyError(file, ref))
		}
	}
	return errs
}

func seenImage(earlier []imageWrite, w imageWrite) bool {
	for _, e := range earlier {
		if mapPointer(e.m) == mapPointer(w.m) && e.key == w.key {
			return true
		}
	}
	return false
}

// validImage checks a whole image reference.
func validImage(s string) *problem {
	if splitImage(s).path == "" {
		return errorf(ErrImage, "image %q has no repository: set the image, or image.repository too", s)
	}
	if err := parseImage(s); err != nil {
		return errorf(ErrImage, "image %q is not a valid reference: %v", s, err)
	}
	return nil
}
