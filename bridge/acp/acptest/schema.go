// Package acptest holds test helpers for ACP: conformance of every frame an
// agent writes against the official ACP v1 JSON schema. It is imported only
// by tests; the bridge binary never links it.
//
// The schema is pinned in testdata/schema.json, a copy of schema/v1/schema.json
// from the npm package of the TypeScript SDK (the version the Makefile's
// ACP_SDK names), so every schema check runs offline. `make schema` fetches
// the same file into .cache/acp-schema/v1/schema.json, and a test here fails
// when the two differ. ACPBRIDGE_SCHEMA may point at another copy to try it.
// The unstable schema of the same package (schema.unstable.json: the stable
// one plus the methods marked **UNSTABLE**, such as session/fork) is pinned
// beside it the same way; a definition named "unstable/Name" is checked
// against it.
package acptest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaEnv names the environment variable that may point at a schema.json
// to use instead of the pinned one.
const SchemaEnv = "ACPBRIDGE_SCHEMA"

//go:embed testdata/schema.json
var pinned []byte

//go:embed testdata/schema.unstable.json
var pinnedUnstable []byte

// unstablePrefix marks a definition of the unstable schema.
const unstablePrefix = "unstable/"

// Validator checks JSON values against definitions of the ACP v1 schema.
type Validator struct {
	c    *jsonschema.Compiler
	mu   sync.Mutex
	defs map[string]*jsonschema.Schema // guarded by mu; compiled on first use
}

// Schema returns the bytes of the schema the tests check against: the file
// $ACPBRIDGE_SCHEMA names when it is set, else the pinned copy.
func Schema() ([]byte, error) {
	if p := os.Getenv(SchemaEnv); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("reading schema: %w", err)
		}
		return data, nil
	}
	return pinned, nil
}

// UnstableSchema returns the bytes of the pinned unstable schema.
func UnstableSchema() []byte { return pinnedUnstable }

// Load returns a Validator for the official schema, failing the test when
// the schema cannot be read or parsed.
func Load(tb testing.TB) *Validator {
	tb.Helper()
	v, err := New()
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// LoadUnstable returns a Validator for the pinned unstable schema, failing
// the test when it cannot be parsed.
func LoadUnstable(tb testing.TB) *Validator {
	tb.Helper()
	v, err := parse(pinnedUnstable)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// New returns a Validator for the official schema, for a TestMain that
// shares one among its tests.
func New() (*Validator, error) {
	data, err := Schema()
	if err != nil {
		return nil, err
	}
	return parse(data)
}

// parse compiles the schema document in data.
func parse(data []byte) (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("parsing schema: %w", err)
	}
	unstable, err := jsonschema.UnmarshalJSON(bytes.NewReader(pinnedUnstable))
	if err != nil {
		return nil, fmt.Errorf("parsing the unstable schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("acp.json", doc); err != nil {
		return nil, fmt.Errorf("adding schema: %w", err)
	}
	if err := c.AddResource("acp-unstable.json", unstable); err != nil {
		return nil, fmt.Errorf("adding the unstable schema: %w", err)
	}
	return &Validator{c: c, defs: make(map[string]*jsonschema.Schema)}, nil
}

// Validate checks raw JSON against $defs/def, of the unstable schema when
// def is "unstable/Name".
func (v *Validator) Validate(def string, raw []byte) error {
	s, err := v.def(def)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("decoding instance: %w", err)
	}
	if err := s.Validate(inst); err != nil {
		return fmt.Errorf("%s: %w", def, err)
	}
	return nil
}

func (v *Validator) def(name string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.defs[name]; ok {
		return s, nil
	}
	doc, def := "acp.json", name
	if n, ok := strings.CutPrefix(name, unstablePrefix); ok {
		doc, def = "acp-unstable.json", n
	}
	s, err := v.c.Compile(doc + "#/$defs/" + def)
	if err != nil {
		return nil, fmt.Errorf("compiling $defs/%s: %w", name, err)
	}
	v.defs[name] = s
	return s, nil
}

// compactJSON is for error messages.
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	s := b.String()
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}
