package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// readAll reads a recording's script through Script, copying each line.
func readAll(t *testing.T, r *Recording) []Step {
	t.Helper()
	sr, err := r.Script()
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	var steps []Step
	for {
		st, err := sr.Next()
		if err == io.EOF {
			return steps
		}
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, Step{Dir: st.Dir, Line: bytes.Clone(st.Line)})
	}
}

// Open and Script give what Load gives, for compact and hand-indented
// scripts, lines longer than any read buffer, lines across the edges of
// the buffers and past the move to the large one, and every checked-in
// fixture.
func TestOpenMatchesLoad(t *testing.T) {
	long := fmt.Sprintf(`{"type":"assistant","text":%q}`, strings.Repeat("é\"x", 60<<10))
	var many strings.Builder
	for i := range 400 {
		fmt.Fprintf(&many, "%c {\"n\":%d,\"text\":%q}\n", "<>"[i%2], i, strings.Repeat("y", i*i%9000))
	}
	paths := []string{
		writeTemp(t, "many.txtar", "-- agent --\n"+many.String()),
		writeTemp(t, "sample.txtar", strings.Replace(sample, ">   { \"type\": \"control_response\",\n", ">   { \"type\": \"control_response\" }\n", 1)),
		writeTemp(t, "long.txtar", "-- meta --\na: b\n-- agent --\n< {}\n> "+long+"\n>  "+long+"  \n\n# end\n> {\"n\":1}"),
		writeTemp(t, "bare.txtar", "only prose\n"),
		writeTemp(t, "empty.txtar", "-- agent --\n# nothing yet\n-- editor --\n"),
	}
	checkedIn, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "*", "*.txtar"))
	if err != nil || len(checkedIn) == 0 {
		t.Fatalf("no checked-in fixtures: %v", err)
	}
	for _, path := range append(paths, checkedIn...) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			fx, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r.Meta, fx.Meta) || !reflect.DeepEqual(r.Editor, fx.Editor) {
				t.Errorf("Open: meta %v editor %s; Load: meta %v editor %s", r.Meta, r.Editor, fx.Meta, fx.Editor)
			}
			if r.HasScript != (fx.Script != nil) || r.Steps != len(fx.Script) {
				t.Errorf("HasScript %v Steps %d; Load has %d steps (nil: %v)", r.HasScript, r.Steps, len(fx.Script), fx.Script == nil)
			}
			if got := readAll(t, r); !reflect.DeepEqual(got, fx.Script) && (len(got) > 0 || len(fx.Script) > 0) {
				t.Errorf("Script =\n%.2000s\nwant\n%.2000s", FormatScript(got), FormatScript(fx.Script))
			}
			checkNextOf(t, r, fx.Script)
		})
	}
}

// checkNextOf reads r's script with NextOf(ToAgent): every step of want in
// order, the '<' ones whole, the '>' ones whole or without their line.
func checkNextOf(t *testing.T, r *Recording, want []Step) {
	t.Helper()
	sr, err := r.Script()
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	dr, ok := sr.(DirReader)
	if !ok {
		if r.HasScript {
			t.Fatalf("Script gave a %T, not a DirReader", sr)
		}
		return
	}
	passed := 0
	for i := 0; ; i++ {
		st, err := dr.NextOf(ToAgent)
		if err == io.EOF {
			if i != len(want) {
				t.Errorf("NextOf: %d steps, want %d", i, len(want))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(want) {
			t.Fatalf("NextOf: step %d of %d", i+1, len(want))
		}
		if st.Dir != want[i].Dir || (st.Line != nil || st.Dir == ToAgent) && !bytes.Equal(st.Line, want[i].Line) {
			t.Errorf("NextOf step %d = %c %.200s, want %c %.200s", i+1, st.Dir, st.Line, want[i].Dir, want[i].Line)
		}
		if st.Line == nil {
			passed++
		}
	}
	if filepath.Base(r.Path) == "long.txtar" && passed != 2 {
		t.Errorf("NextOf passed over %d lines whole, want the 2 long '>' ones", passed)
	}
}

// Readers of one recording are independent: each opens the file and
// starts at the first step.
func TestScriptReadersAreIndependent(t *testing.T) {
	path := writeTemp(t, "s.txtar", "-- agent --\n< {\"n\":0}\n> {\"n\":1}\n> {\"n\":2}\n")
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := r.Script()
	defer a.Close()
	b, _ := r.Script()
	defer b.Close()
	next := func(sr StepReader) string {
		st, err := sr.Next()
		if err != nil {
			return err.Error()
		}
		return string(st.Dir) + string(st.Line)
	}
	got := []string{next(a), next(a), next(b), next(a), next(a), next(b)}
	want := []string{`<{"n":0}`, `>{"n":1}`, `<{"n":0}`, `>{"n":2}`, "EOF", `>{"n":1}`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("interleaved reads = %q, want %q", got, want)
	}
}

// A file changed or removed after Open is refused, naming it, and one
// rewritten while it is read ends the reader with an error.
func TestScriptChangedFile(t *testing.T) {
	// More steps than one read takes in, so that the change is seen.
	var b strings.Builder
	b.WriteString("-- meta --\nadapter: claude\n-- agent --\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "> {\"n\":%d}\n", i)
	}
	data := b.String()
	path := writeTemp(t, "c.txtar", data)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(); err != nil {
		t.Fatalf("Check on an unchanged file: %v", err)
	}
	sr, err := r.Script()
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	if _, err := sr.Next(); err != nil {
		t.Fatal(err)
	}
	// Rewritten in place, one step shorter, while sr reads it.
	if err := os.WriteFile(path, []byte(strings.TrimSuffix(data, "> {\"n\":19999}\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	var readErr error
	for readErr == nil {
		_, readErr = sr.Next()
	}
	if !errors.Is(readErr, ErrChanged) || !strings.Contains(readErr.Error(), path) {
		t.Errorf("reading a file that shrank: %v, want ErrChanged naming it", readErr)
	}
	for _, err := range []error{r.Check(), scriptErr(r)} {
		if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), path) {
			t.Errorf("after a change: %v, want ErrChanged naming the file", err)
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{r.Check(), scriptErr(r)} {
		if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), path) {
			t.Errorf("after removal: %v, want ErrNotExist naming the file", err)
		}
	}
}

func scriptErr(r *Recording) error {
	sr, err := r.Script()
	if err == nil {
		sr.Close()
	}
	return err
}

// A recording without an agent section has an empty script.
func TestScriptWithoutAgentSection(t *testing.T) {
	r, err := Open(writeTemp(t, "n.txtar", "-- meta --\na: b\n-- editor --\n{\"id\":1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r.HasScript || r.Steps != 0 || len(readAll(t, r)) != 0 {
		t.Errorf("HasScript %v, Steps %d", r.HasScript, r.Steps)
	}
	if want := []json.RawMessage{json.RawMessage(`{"id":1}`)}; !reflect.DeepEqual(r.Editor, want) {
		t.Errorf("Editor = %s", r.Editor)
	}
}

func TestSliceSteps(t *testing.T) {
	steps := []Step{{ToAgent, []byte(`{}`)}, {FromAgent, []byte(`{"a":1}`)}}
	sr := SliceSteps(steps)
	var got []Step
	for {
		st, err := sr.Next()
		if err == io.EOF {
			break
		}
		got = append(got, st)
	}
	if !reflect.DeepEqual(got, steps) || sr.Close() != nil {
		t.Errorf("SliceSteps gave %v", got)
	}
}

// Open keeps the profile section a PTY recording carries, as written.
func TestOpenKeepsTheProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.txtar")
	profile := "name = \"mine\"\nidle = '^> ?$'\n"
	data := "-- meta --\nadapter: pty\n-- profile --\n" + profile + "-- agent --\n> {\"t_ms\":0,\"out\":\"> \"}\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Profile) != profile {
		t.Errorf("Profile = %q, want %q", r.Profile, profile)
	}
	if r.Steps != 1 {
		t.Errorf("Steps = %d, want 1", r.Steps)
	}
}

// TestOpenFS: a recording opened from a file system (one built into the
// binary) reads as the same file opened from disk does.
func TestOpenFS(t *testing.T) {
	path := filepath.Join("..", "..", "fixtures", "claude", "demo.txtar")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{"demo.txtar": {Data: data}}
	got, err := OpenFS(fsys, "demo.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if got.Path != "demo.txtar" || !reflect.DeepEqual(got.Meta, want.Meta) || !reflect.DeepEqual(got.Editor, want.Editor) ||
		got.Steps != want.Steps || got.Steps == 0 {
		t.Errorf("OpenFS: path %q meta %v, %d steps; want meta %v, %d steps", got.Path, got.Meta, got.Steps, want.Meta, want.Steps)
	}
	if err := got.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	if g, w := readAll(t, got), readAll(t, want); !reflect.DeepEqual(g, w) {
		t.Errorf("OpenFS's script differs from Open's (%d steps, want %d)", len(g), len(w))
	}
	if _, err := OpenFS(fsys, "missing.txtar"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenFS of a missing file: %v, want fs.ErrNotExist", err)
	}
}

// compactJSON agrees with json.Compact on whether a valid text is compact,
// blanks inside strings and escaped quotes included.
func TestCompactJSON(t *testing.T) {
	for _, s := range []string{
		`{}`, `{ }`, `{"a":1}`, `{"a": 1}`, `{"a b":"c d"}`, "{\"a\":\"\\\" \"}", "{\"a\":\"\\\\\" , \"b\":1}",
		"{\"a\":\"\\\\\",\"b\":1}", "{\"a\":[1,\n2]}", "{\"a\":1\r}", "{\"a\":\t1}", `{"a":"é\"x"}`,
	} {
		if !json.Valid([]byte(s)) {
			t.Fatalf("%q: not valid JSON", s)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(s)); err != nil {
			t.Fatal(err)
		}
		if got, want := compactJSON([]byte(s)), buf.String() == s; got != want {
			t.Errorf("compactJSON(%q) = %v, want %v", s, got, want)
		}
	}
}
