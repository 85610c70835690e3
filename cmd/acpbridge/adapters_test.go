package main

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// tableFile is the file that holds the adapter table.
const tableFile = "adapters.go"

// TestAdapterNamesInTable: an agent is named in the adapter table and
// nowhere else in the command, so adding or renaming one is one entry.
// The name of an installable agent (claude, gemini, ...) must not appear
// as a word in any string literal of another non-test file: not as a
// command, an executable, a recording kind or an example path. The name
// of a generic adapter (acp, pty, replay) is also an ordinary word of the
// prose and URLs ("/acp"), so only a literal that is that name alone
// counts for it. Import paths are the adapters' packages, not names the
// command uses. Product names in prose ("Claude Code") are titles, not
// names, and are not checked.
func TestAdapterNamesInTable(t *testing.T) {
	type rule struct {
		name string
		word *regexp.Regexp // nil: the literal must equal name
	}
	var rules []rule
	for _, d := range adapters() {
		if d.exe == "" {
			rules = append(rules, rule{name: d.name})
			continue
		}
		names := []string{d.name}
		if d.exe != d.name {
			names = append(names, d.exe)
		}
		for _, n := range names {
			rules = append(rules, rule{name: n, word: regexp.MustCompile(`(^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(n) + `($|[^A-Za-z0-9_-])`)})
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") || file == tableFile {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			if _, ok := n.(*ast.ImportSpec); ok {
				return false // a package's path, not a name the command uses
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
			}
			for _, r := range rules {
				if s == r.name || (r.word != nil && r.word.MatchString(s)) {
					t.Errorf("%s: %s names %q, which only %s may name (take it from the table entry)",
						fset.Position(lit.Pos()), lit.Value, r.name, tableFile)
				}
			}
			return true
		})
	}
	if checked < 5 {
		t.Fatalf("checked %d files: not run in the package's directory?", checked)
	}
}

// TestAdapterTableServed: every entry of the adapter table is a command at
// top level and under serve; every installable agent has its line in
// `agents` and follows the conventions of its executable's flag and
// variable; every kind of recording has one entry that plays it, and a
// recording of that kind in fixtures/ plays through it.
func TestAdapterTableServed(t *testing.T) {
	app := newApp(&bytes.Buffer{}, &bytes.Buffer{})
	// serve's adapter commands are made once the command line names serve.
	if err := app.Run([]string{"acpbridge", "serve", "--help"}); err != nil {
		t.Fatalf("serve --help: %v", err)
	}
	serve := app.Command("serve")
	if serve == nil {
		t.Fatal("no serve command")
	}
	// agents, with no agent installed: every agent still has its line.
	t.Setenv("PATH", t.TempDir())
	for _, d := range installable() {
		t.Setenv(d.env, "")
	}
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"acpbridge", "agents", "--json"}, &out, &errOut); code != 0 {
		t.Fatalf("agents --json: exit %d: %s", code, errOut.String())
	}
	var reports []agentReport
	if err := json.Unmarshal(out.Bytes(), &reports); err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, r := range reports {
		listed[r.Name] = true
		if i := strings.Index(r.Name, ":"); i > 0 {
			listed[r.Name[:i]+":"] = true
		}
	}

	kinds := map[string]string{} // kind → entry
	for _, d := range adapters() {
		t.Run(d.name, func(t *testing.T) {
			if c := app.Command(d.name); c == nil || c.Hidden || c.Usage != d.usage {
				t.Errorf("no top-level command %s", d.name)
			}
			if c := serve.Command(d.name); c == nil || c.Hidden || c.Usage != d.usage {
				t.Errorf("no command serve %s", d.name)
			}
			if d.exe != "" {
				if !listed[d.name] {
					t.Errorf("agents lists no %s", d.name)
				}
				if want := "ACPBRIDGE_" + strings.ToUpper(d.name) + "_PATH"; d.env != want {
					t.Errorf("env %q, want %q", d.env, want)
				}
				if d.title == "" || d.pathFlag == "" || d.install == "" {
					t.Errorf("installable agent without title, path flag or install hint: %+v", d)
				}
			}
			if d.reports != nil && !listed[d.name+":"] {
				t.Errorf("agents lists none of %s's lines", d.name)
			}
			if (d.kind == "") != (d.replay == nil) {
				t.Errorf("kind %q with replay %v: want both or neither", d.kind, d.replay != nil)
			}
		})
		if d.kind != "" {
			if other, ok := kinds[d.kind]; ok {
				t.Errorf("recording kind %q is played by both %s and %s", d.kind, other, d.name)
			}
			kinds[d.kind] = d.name
		}
	}
	for kind, rec := range fixtureOfEachKind(t, kinds) {
		t.Run("replay "+kind, func(t *testing.T) {
			a, err := replayAdapter(&globals{}, rec, 0)
			if err != nil {
				t.Fatalf("replaying %s: %v", rec.Path, err)
			}
			if err := a.Close(); err != nil {
				t.Error(err)
			}
		})
	}
}

// fixtureOfEachKind opens one recording of each of the kinds from
// fixtures/<agent>/*.txtar, and fails for a kind that has none.
func fixtureOfEachKind(t *testing.T, kinds map[string]string) map[string]*recording.Recording {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "*", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]*recording.Recording{}
	for _, p := range paths {
		if len(found) == len(kinds) {
			break
		}
		rec, err := recording.Open(p)
		if err != nil {
			continue // not a recording (a scenario, say); the recordings' own tests read them
		}
		kind := rec.Meta["adapter"]
		if _, want := kinds[kind]; want && found[kind] == nil {
			found[kind] = rec
		}
	}
	for kind, name := range kinds {
		if found[kind] == nil {
			t.Errorf("no recording of kind %q (played by %s) in fixtures/", kind, name)
		}
	}
	return found
}
