package kpatch

import "strings"

// imagePartStep is a part of the image reference in a string field, as
// the schema says: image.registry, image.repository, image.tag,
// image.digest.
type imagePartStep struct{ *fieldStep }

func (x imagePartStep) write(b *strings.Builder, first bool) {
	writeBare(b, escapeBare(x.name), first)
}

func (x imagePartStep) apply(a *applier, s slot, cur any, c cursor) *problem {
	return a.setImagePart(s, cur, c, x.name)
}

// maybeImagePartStep is a last `image.PART` of a path without a schema:
// an image part if the object holds a string there, else a field.
type maybeImagePartStep struct{ imagePartStep }

func (x maybeImagePartStep) apply(a *applier, s slot, cur any, c cursor) *problem {
	if _, isString := cur.(string); isString {
		return a.setImagePart(s, cur, c, x.name)
	}
	c.val = plainValue(c.val) // a variable's value, as YAML read it
	return a.applyField(s, cur, c, x.name)
}

// setImagePart replaces one part of the image reference in s; the
// reference is checked when the file is done with the object.
func (a *applier) setImagePart(s slot, cur any, c cursor, part string) *problem {
	pl := c.pl
	var old string
	switch v := cur.(type) {
	case string:
		old = v
	case nil:
	default:
		return c.fail(errorf(ErrType, "%s is %s; image parts need a string image", pathText(pl.steps[:len(pl.steps)-1]), describeValue(cur)))
	}
	if pl.ifAbsent && imagePartOf(old, part) != "" {
		return nil // set if absent: the reference has this part
	}
	text := ""
	if pl.act != actDelete {
		if sv, ok := c.val.(sourced); ok {
			text = sv.text // a variable's value as its values file wrote it
		} else if pl.raw != "" && pl.tmpl == nil {
			text = pl.raw
		} else if c.val != nil {
			var ok bool
			if text, ok = scalarText(c.val); !ok {
				return c.fail(errorf(ErrValue, "an image part is text, not %s", describeValue(c.val)))
			}
		}
	}
	ref, err := setImageRefPart(old, part, text)
	if err != nil {
		return c.fail(err)
	}
	if ref != old || cur == nil {
		a.set(s, ref)
	}
	if s.m != nil && splitImage(ref).path == "" {
		// not a reference yet: checked when the file is done
		a.images = append(a.images, imageWrite{m: s.m, key: s.key, line: pl.line, col: pl.stepCol(c.i)})
	}
	return nil
}
