package recording

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const sample = `A plain turn, recorded by hand.

-- meta --
adapter: claude
session: 11111111-2222-3333-4444-555555555555
# a comment
cwd: /home/dev/project

-- agent --
# initialize
< {"type":"control_request","request_id":"req_init","request":{"subtype":"initialize"}}
>   { "type": "control_response",
# the line above is cut short on purpose (TestLoadErrors); TestLoad mends it
> {"type":"system", "subtype":"init"}

< {"type":"user","message":{"role":"user","content":"hi"}}
-- editor --
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}

{ "jsonrpc" : "2.0" , "method":"session/cancel"}
-- want --
{
  "id": 1
}
`

func writeTemp(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	good := strings.Replace(sample, ">   { \"type\": \"control_response\",\n", ">   { \"type\": \"control_response\" }\n", 1)
	path := writeTemp(t, "plain.txtar", good)
	fx, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if fx.Path != path {
		t.Errorf("Path = %q", fx.Path)
	}
	wantMeta := map[string]string{
		"adapter": "claude",
		"session": "11111111-2222-3333-4444-555555555555",
		"cwd":     "/home/dev/project",
	}
	if !reflect.DeepEqual(fx.Meta, wantMeta) {
		t.Errorf("Meta = %v, want %v", fx.Meta, wantMeta)
	}
	wantScript := []Step{
		{ToAgent, []byte(`{"type":"control_request","request_id":"req_init","request":{"subtype":"initialize"}}`)},
		{FromAgent, []byte(`{"type":"control_response"}`)},
		{FromAgent, []byte(`{"type":"system","subtype":"init"}`)},
		{ToAgent, []byte(`{"type":"user","message":{"role":"user","content":"hi"}}`)},
	}
	if !reflect.DeepEqual(fx.Script, wantScript) {
		t.Errorf("Script =\n%s\nwant\n%s", FormatScript(fx.Script), FormatScript(wantScript))
	}
	wantEditor := []json.RawMessage{
		json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`),
		json.RawMessage(`{"jsonrpc":"2.0","method":"session/cancel"}`),
	}
	if !reflect.DeepEqual(fx.Editor, wantEditor) {
		t.Errorf("Editor = %s, want %s", fx.Editor, wantEditor)
	}
	if want, ok := fx.File.Section(SectionWant); !ok || !strings.HasPrefix(string(want), "{\n") {
		t.Errorf("want section = %q, %v", want, ok)
	}
	if got := fx.File.Format(); string(got) != good {
		t.Errorf("File does not round-trip:\n%s", got)
	}
}

func TestLoadMissingSections(t *testing.T) {
	fx, err := Load(writeTemp(t, "bare.txtar", "only prose\n"))
	if err != nil {
		t.Fatal(err)
	}
	if fx.Meta == nil || len(fx.Meta) != 0 || fx.Script != nil || fx.Editor != nil {
		t.Errorf("got Meta=%v Script=%v Editor=%v; want empty map and nils", fx.Meta, fx.Script, fx.Editor)
	}
	fx, err = Load(writeTemp(t, "empty.txtar", "-- agent --\n# nothing yet\n-- editor --\n"))
	if err != nil {
		t.Fatal(err)
	}
	if fx.Script == nil || len(fx.Script) != 0 || fx.Editor == nil || len(fx.Editor) != 0 {
		t.Errorf("got Script=%v Editor=%v; want empty, non-nil", fx.Script, fx.Editor)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string // the error after "path:"
	}{
		{
			name: "unterminated JSON in agent",
			data: sample,
			want: `12: agent: invalid JSON: unexpected end of JSON input`,
		},
		{
			name: "bad direction",
			data: "c\n-- agent --\n> {}\n\n! {}\n",
			want: `5: agent: want "> {json}", "< {json}", a '#' comment or a blank line`,
		},
		{
			name: "not an object",
			data: "-- meta --\na: b\n-- agent --\n< [1]\n",
			want: `4: agent: want a JSON object`,
		},
		{
			name: "two values on a line",
			data: "-- agent --\n< {} {}\n",
			want: `2: agent: invalid JSON: invalid character '{' after top-level value`,
		},
		{
			name: "missing blank after direction",
			data: "-- agent --\n<{}\n",
			want: `2: agent: want a blank after '<'`,
		},
		{
			name: "meta without colon",
			data: "x\ny\n-- meta --\nadapter claude\n",
			want: `4: meta: want "key: value"`,
		},
		{
			name: "meta duplicate",
			data: "-- meta --\na: 1\na: 2\n",
			want: `3: meta: duplicate key "a"`,
		},
		{
			name: "editor bad JSON",
			data: "-- agent --\n> {}\n-- editor --\n{}\n\n{\"a\":}\n",
			want: `6: editor: invalid JSON: invalid character '}' looking for beginning of value`,
		},
	}
	// Open checks a file as Load does, with the same errors.
	loaders := []struct {
		name string
		load func(string) error
	}{
		{"Load", func(p string) error { _, err := Load(p); return err }},
		{"Open", func(p string) error { _, err := Open(p); return err }},
	}
	for _, l := range loaders {
		for _, tt := range tests {
			t.Run(l.name+"/"+tt.name, func(t *testing.T) {
				path := writeTemp(t, "bad.txtar", tt.data)
				err := l.load(path)
				if err == nil {
					t.Fatalf("%s succeeded", l.name)
				}
				if want := path + ":" + tt.want; err.Error() != want {
					t.Errorf("error = %q\nwant    %q", err, want)
				}
			})
		}
		if err := l.load(writeTemp(t, "dup.txtar", "-- a --\n-- a --\n")); err == nil || !strings.Contains(err.Error(), "duplicate section") {
			t.Errorf("%s: duplicate sections: error = %v", l.name, err)
		}
		if err := l.load(filepath.Join(t.TempDir(), "missing.txtar")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: missing file: error = %v, want ErrNotExist", l.name, err)
		}
	}
}

func TestSave(t *testing.T) {
	path := writeTemp(t, "case.txtar", "prose\n-- agent --\n> {}\n-- want --\nold\n")
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	fx, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	fx.File.SetSection(SectionWant, []byte("{\n  \"new\": true\n}"))
	if err := fx.Save(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "prose\n-- agent --\n> {}\n-- want --\n{\n  \"new\": true\n}\n"; string(got) != want {
		t.Errorf("saved %q, want %q", got, want)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode after Save = %v, %v; want 0640", st.Mode(), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after Save, want 1", len(entries))
	}

	// Data that would read back as a new section is refused, and the file is
	// left alone.
	fx.File.SetSection(SectionWant, []byte("x\n-- agent --\n"))
	if err := fx.Save(); err == nil {
		t.Error("Save accepted a header line inside section data")
	}
	fx.File.SetSection(" padded ", nil)
	if err := WriteFile(path, fx.File); err == nil {
		t.Error("WriteFile accepted a section name with blanks around it")
	}
	if again, _ := os.ReadFile(path); string(again) != string(got) {
		t.Errorf("a refused Save changed the file to %q", again)
	}
}
