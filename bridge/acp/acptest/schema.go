// Package acptest holds test helpers for ACP: conformance of every frame an
// agent writes against the official ACP v1 JSON schema. It is imported only
// by tests; the bridge binary never links it.
//
// The schema is not vendored: `make schema` fetches it with npm from the
// TypeScript SDK package into .cache/acp-schema/v1/schema.json (or point
// ACPBRIDGE_SCHEMA at a copy).
package acptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaEnv names the environment variable that may point at schema.json.
const SchemaEnv = "ACPBRIDGE_SCHEMA"

// Validator checks JSON values against definitions of the ACP v1 schema.
type Validator struct {
	c    *jsonschema.Compiler
	mu   sync.Mutex
	defs map[string]*jsonschema.Schema // guarded by mu; compiled on first use
}

// SchemaPath finds the schema: $ACPBRIDGE_SCHEMA, else
// .cache/acp-schema/v1/schema.json in the module root above the working
// directory. It returns "" when there is none.
func SchemaPath() string {
	if p := os.Getenv(SchemaEnv); p != "" {
		return p
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, ".cache", "acp-schema", "v1", "schema.json")
			if _, err := os.Stat(p); err == nil {
				return p
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Load returns a Validator for the official schema. Without the schema the
// test fails under CI (CI=true), where `make schema` must have run, and is
// skipped elsewhere with a message saying how to get it.
func Load(tb testing.TB) *Validator {
	tb.Helper()
	p := SchemaPath()
	if p == "" {
		msg := "ACP schema not found: run `make schema` (fetches @agentclientprotocol/sdk with npm) or set " + SchemaEnv
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	v, err := NewValidator(p)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// NewValidator loads the schema at path.
func NewValidator(path string) (*Validator, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading schema: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("parsing schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("acp.json", doc); err != nil {
		return nil, fmt.Errorf("adding schema: %w", err)
	}
	return &Validator{c: c, defs: make(map[string]*jsonschema.Schema)}, nil
}

// Validate checks raw JSON against $defs/def.
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
	s, err := v.c.Compile("acp.json#/$defs/" + name)
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
