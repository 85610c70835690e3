package acp_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json from the Go values")

func goldenPath(name string) string { return filepath.Join("testdata", name+".json") }

// equalJSON compares two JSON documents semantically.
func equalJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("unmarshal %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

func TestGoldens(t *testing.T) {
	seen := map[string]bool{}
	for _, tt := range goldenCases() {
		if seen[tt.name] {
			t.Fatalf("duplicate golden %s", tt.name)
		}
		seen[tt.name] = true
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.value)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			path := goldenPath(tt.name)
			if *update {
				var buf bytes.Buffer
				if err := json.Indent(&buf, got, "", "  "); err != nil {
					t.Fatal(err)
				}
				buf.WriteByte('\n')
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !equalJSON(t, want, got) {
				t.Errorf("marshal mismatch\nwant: %s\ngot:  %s", want, got)
			}

			// Decode the golden into a fresh value of the same type and
			// encode it again: nothing may be lost or changed.
			ptr := reflect.New(reflect.TypeOf(tt.value))
			if err := json.Unmarshal(want, ptr.Interface()); err != nil {
				t.Fatalf("unmarshal golden: %v", err)
			}
			again, err := json.Marshal(ptr.Elem().Interface())
			if err != nil {
				t.Fatalf("re-marshal: %v", err)
			}
			if !equalJSON(t, want, again) {
				t.Errorf("round trip mismatch\nwant: %s\ngot:  %s", want, again)
			}
			if !sameValue(ptr.Elem(), reflect.ValueOf(tt.value)) {
				t.Errorf("decoded value differs from the Go value\nwant: %#v\ngot:  %#v", tt.value, ptr.Elem().Interface())
			}
		})
	}
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if name, ok := bytes.CutSuffix([]byte(e.Name()), []byte(".json")); ok && !seen[string(name)] {
			t.Errorf("testdata/%s has no golden case", e.Name())
		}
	}
}

// sameValue is reflect.DeepEqual except that a nil slice equals an empty one:
// required arrays are written as [] and so come back non-nil.
func sameValue(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() || a.IsNil() != b.IsNil() {
			return false
		}
		for _, k := range a.MapKeys() {
			if !sameValue(a.MapIndex(k), b.MapIndex(k)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}
