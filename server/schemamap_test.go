package server

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/invopop/jsonschema"
)

type mapInner struct {
	From int    `json:"from" jsonschema:"minimum=1"`
	Note string `json:"note,omitempty" jsonschema:"description=A note,maxLength=80"`
}

type mapAll struct {
	Path     string            `json:"path" jsonschema:"minLength=1,maxLength=4096,pattern=^[^/]"`
	Mode     string            `json:"mode,omitempty" jsonschema:"enum=text,enum=bytes,default=text"`
	Limit    int               `json:"limit,omitempty" jsonschema:"minimum=0,maximum=10000,exclusiveMaximum=10001"`
	Ratio    float64           `json:"ratio,omitempty" jsonschema:"multipleOf=0.5"`
	Upper    bool              `json:"upper,omitempty"`
	Ptr      *int              `json:"ptr,omitempty"`
	Tags     []string          `json:"tags,omitempty" jsonschema:"minItems=1,maxItems=3,uniqueItems=true"`
	Lines    []mapInner        `json:"lines,omitempty"`
	One      mapInner          `json:"one"`
	Counts   map[string]int    `json:"counts,omitempty"`
	Nested   map[string][]bool `json:"nested,omitempty"`
	When     time.Time         `json:"when"`
	Raw      json.RawMessage   `json:"raw,omitempty"`
	Empty    struct{}          `json:"empty"`
	Deprecat string            `json:"deprecat,omitempty" jsonschema:"deprecated=true,readOnly=true,title=Old"`
}

// TestSchemaMapIsJSON: schemaMap gives what decoding the schema's JSON
// gives, value for value and type for type (float64, not the uint64 or
// json.Number of the fields), for every kind of field a tool uses.
func TestSchemaMapIsJSON(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[mapAll](), reflect.TypeFor[mapInner](), reflect.TypeFor[struct{}]()} {
		r := &jsonschema.Reflector{Anonymous: true, DoNotReference: true, ExpandedStruct: true, LookupComment: lookupTagDescription}
		s := r.ReflectFromType(typ)
		s.Extras = map[string]any{"x-extra": []int{1, 2}}
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var want any
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		got, err := schemaMap(s)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: schemaMap differs from the JSON round trip (-want +got):\n%s", typ, diff)
		}
	}
	for _, s := range []*jsonschema.Schema{jsonschema.TrueSchema, jsonschema.FalseSchema, {}} {
		data, _ := json.Marshal(s)
		var want any
		json.Unmarshal(data, &want)
		if got, err := schemaMap(s); err != nil || got != want {
			t.Errorf("schemaMap(%s) = %v, %v; want %v", data, got, err, want)
		}
	}
}
