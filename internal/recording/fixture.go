package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Section names with a meaning to Load.
const (
	SectionMeta   = "meta"
	SectionAgent  = "agent"
	SectionEditor = "editor"
	SectionWant   = "want"
	// SectionProfile holds the profile a PTY recording was made with.
	SectionProfile = "profile"
)

// Fixture is a loaded fixture file. Meta, Script and Editor are parsed views
// of File's sections; File is what Save writes, so change a section with
// File.SetSection before saving.
type Fixture struct {
	// Path is the file the fixture was loaded from and is saved to.
	Path string
	File *File
	// Meta holds the meta section's "key: value" lines. Never nil.
	Meta map[string]string
	// Script is the agent section; nil when the file has none.
	Script []Step
	// Editor holds the editor section's messages, compacted; nil when the
	// file has none.
	Editor []json.RawMessage
}

// Load reads and parses a fixture file. Errors name the file and, for
// problems inside a section, the line ("path:12: ...").
func Load(path string) (*Fixture, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fx := &Fixture{Path: path, File: f, Meta: map[string]string{}}
	if data, ok := f.Section(SectionMeta); ok {
		fx.Meta, err = parseMeta(data, f.sectionLine(SectionMeta))
		if err != nil {
			return nil, fileError(path, SectionMeta, err)
		}
	}
	if data, ok := f.Section(SectionAgent); ok {
		fx.Script, err = parseScript(data, f.sectionLine(SectionAgent))
		if err != nil {
			return nil, fileError(path, SectionAgent, err)
		}
		if fx.Script == nil {
			fx.Script = []Step{}
		}
	}
	if data, ok := f.Section(SectionEditor); ok {
		fx.Editor, err = parseEditor(data, f.sectionLine(SectionEditor))
		if err != nil {
			return nil, fileError(path, SectionEditor, err)
		}
		if fx.Editor == nil {
			fx.Editor = []json.RawMessage{}
		}
	}
	return fx, nil
}

// fileError turns a *LineError into "path:LINE: section: message".
func fileError(path, section string, err error) error {
	var le *LineError
	if errors.As(err, &le) {
		return fmt.Errorf("%s:%d: %s: %w", path, le.Line, section, le.Err)
	}
	return fmt.Errorf("%s: %s: %w", path, section, err)
}

func parseMeta(data []byte, firstLine int) (map[string]string, error) {
	meta := map[string]string{}
	err := eachLine(data, firstLine, func(n int, line []byte) error {
		if len(line) == 0 || line[0] == '#' {
			return nil
		}
		k, v, ok := strings.Cut(string(line), ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case !ok || k == "":
			return &LineError{n, fmt.Errorf("want \"key: value\"")}
		case hasKey(meta, k):
			return &LineError{n, fmt.Errorf("duplicate key %q", k)}
		}
		meta[k] = v
		return nil
	})
	return meta, err
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

func parseEditor(data []byte, firstLine int) ([]json.RawMessage, error) {
	var msgs []json.RawMessage
	buf := bytes.NewBuffer(make([]byte, 0, len(data)))
	err := eachLine(data, firstLine, func(n int, line []byte) error {
		if len(line) == 0 || line[0] == '#' {
			return nil
		}
		obj, err := compactObject(buf, line)
		if err != nil {
			return &LineError{n, err}
		}
		msgs = append(msgs, json.RawMessage(obj))
		return nil
	})
	return msgs, err
}

// Save writes fx.File back to fx.Path (see WriteFile).
func (fx *Fixture) Save() error {
	return WriteFile(fx.Path, fx.File)
}

// WriteFile formats f and replaces path with it atomically (a temporary file
// in the same directory, then a rename), keeping the old file's permissions.
// It refuses to write a file that would not parse back to the same sections,
// which happens when a section's data contains a header line.
func WriteFile(path string, f *File) error {
	data := f.Format()
	if err := checkRoundTrip(f, data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// checkRoundTrip verifies that data, the formatted f, parses back to f's
// comment and sections (up to the final newlines Format adds).
func checkRoundTrip(f *File, data []byte) error {
	g, err := Parse(data)
	if err != nil {
		return err
	}
	if g.Comment != string(appendNL(nil, []byte(f.Comment))) || len(g.Sections) != len(f.Sections) {
		return fmt.Errorf("a section name is not a valid header, or data contains a header line")
	}
	for i, s := range f.Sections {
		if g.Sections[i].Name != s.Name || !bytes.Equal(g.Sections[i].Data, appendNL(nil, s.Data)) {
			return fmt.Errorf("section %q: bad name, or data contains a header line", s.Name)
		}
	}
	return nil
}
