package server

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"
)

// schemaMap turns a reflected schema into the form json.Unmarshal gives
// for its JSON (objects as map[string]any, numbers as float64), without
// the JSON: invopop's MarshalJSON marshals every nested schema on its own
// and compares it with an empty one by reflection, and the encoder then
// re-scans each nested result, so the round trip was two thirds of what
// registering a tool cost a new process. Fields are those of
// jsonschema.Schema, by their json tags, omitted when empty as the tags
// say; a field of a type not handled here goes through JSON on its own,
// so the result never differs from the round trip's (TestSchemaMapIsJSON).
func schemaMap(s *jsonschema.Schema) (any, error) {
	v := reflect.ValueOf(s).Elem()
	out := make(map[string]any)
	for _, f := range schemaFields() {
		fv := v.Field(f.index)
		if f.omitEmpty && emptyJSON(fv) {
			continue
		}
		var val any
		var err error
		if f.properties {
			val, err = propertiesMap(s)
		} else {
			val, err = jsonValue(fv)
		}
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", f.name, err)
		}
		out[f.name] = val
	}
	if len(out) == 0 && len(s.Extras) == 0 {
		// A boolean schema (its flag is unexported) or an empty one:
		// MarshalJSON says which, cheaply.
		data, err := s.MarshalJSON()
		if err != nil {
			return nil, err
		}
		return string(data) == "true", nil
	}
	for k, x := range s.Extras { // after the fields, as MarshalJSON appends them
		val, err := viaJSON(x)
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", k, err)
		}
		out[k] = val
	}
	return out, nil
}

// schemaField is one member of jsonschema.Schema's JSON, as its field's
// json tag says.
type schemaField struct {
	index      int
	name       string
	omitEmpty  bool
	properties bool // the ordered map of properties
}

// schemaFields reads jsonschema.Schema's fields and tags once: reading
// them again for every nested schema was half of what registering a tool
// cost.
var schemaFields = sync.OnceValue(func() []schemaField {
	t := reflect.TypeFor[jsonschema.Schema]()
	var out []schemaField
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		out = append(out, schemaField{index: i, name: name, omitEmpty: opts == "omitempty", properties: f.Name == "Properties"})
	}
	return out
})

var (
	schemaType  = reflect.TypeFor[*jsonschema.Schema]()
	numberType  = reflect.TypeFor[json.Number]()
	uint64PType = reflect.TypeFor[*uint64]()
)

// jsonValue converts one field of a schema.
func jsonValue(v reflect.Value) (any, error) {
	switch {
	case v.Type() == schemaType:
		if v.IsNil() {
			return nil, nil
		}
		return schemaMap(v.Interface().(*jsonschema.Schema))
	case v.Type() == numberType:
		return strconv.ParseFloat(v.String(), 64)
	case v.Type() == uint64PType:
		return float64(v.Elem().Uint()), nil
	case v.Kind() == reflect.String:
		return v.String(), nil
	case v.Kind() == reflect.Bool:
		return v.Bool(), nil
	case v.Kind() == reflect.Slice && (v.Type().Elem() == schemaType || v.Type().Elem().Kind() == reflect.String):
		if v.IsNil() {
			return nil, nil
		}
		out := make([]any, v.Len())
		for i := range out {
			var err error
			if out[i], err = jsonValue(v.Index(i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	case v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String && v.Type().Elem() == schemaType:
		if v.IsNil() {
			return nil, nil
		}
		out := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			val, err := jsonValue(it.Value())
			if err != nil {
				return nil, err
			}
			out[it.Key().String()] = val
		}
		return out, nil
	}
	return viaJSON(v.Interface())
}

// propertiesMap converts a schema's properties, an ordered map, into a
// map, as JSON objects decode.
func propertiesMap(s *jsonschema.Schema) (map[string]any, error) {
	out := make(map[string]any, s.Properties.Len())
	for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
		val, err := jsonValue(reflect.ValueOf(pair.Value))
		if err != nil {
			return nil, err
		}
		out[pair.Key] = val
	}
	return out, nil
}

// viaJSON converts a value through its JSON.
func viaJSON(x any) (any, error) {
	data, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(data, &out)
	return out, err
}

// emptyJSON is encoding/json's test for omitempty.
func emptyJSON(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
