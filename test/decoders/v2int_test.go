package decoders

import (
	"errors"
	"strconv"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// intOpts decode integers as int64, as the API server does, through an
// unmarshaler of any.
var intOpts = jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(func(d *jsontext.Decoder, v *any) error {
	if d.PeekKind() != '0' {
		return errors.ErrUnsupported
	}
	val, err := d.ReadValue()
	if err != nil {
		return err
	}
	if i, err := strconv.ParseInt(string(val), 10, 64); err == nil {
		*v = i
		return nil
	}
	f, err := strconv.ParseFloat(string(val), 64)
	*v = f
	return err
}))

func BenchmarkObjectJSONv2Int(b *testing.B) {
	raw := obj(b)
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := jsonv2.Unmarshal(raw, &m, intOpts); err != nil {
			b.Fatal(err)
		}
	}
}
