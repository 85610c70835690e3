package claude

import (
	"reflect"
	"strings"
	"testing"
)

// TestPrintDialectRoundTrip: the template --print-dialect writes is a
// dialect file that reads back as the dialect it was written from.
func TestPrintDialectRoundTrip(t *testing.T) {
	for _, d := range []*Dialect{Claude(), Qwen()} {
		t.Run(d.Name, func(t *testing.T) {
			out, err := PrintDialect(d)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseDialect(d.Name+".toml", out)
			if err != nil {
				t.Fatalf("reading the printed dialect back: %v\n%s", err, out)
			}
			want := *d
			want.claudeFeatures = false
			for i := range got.Modes {
				got.Modes[i].line = 0
			}
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("round trip:\n got %+v\nwant %+v\n%s", *got, want, out)
			}
		})
	}
}

// TestParseDialectErrors: every error names the file and the line of
// what is wrong.
func TestParseDialectErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"syntax", "name = \"x\"\nargs = [\"a\"\n", "d.toml:2:"},
		{"unknown key", "name = \"x\"\nargs = [\"a\"]\n\nflavour = 1\n", `d.toml:4: unknown key "flavour"`},
		{"unknown tool key", "name = \"x\"\nargs = [\"a\"]\n[tools.t]\nkind = \"read\"\ncolour = \"red\"\n", `d.toml:5: unknown key "tools.t.colour"`},
		{"missing name", "args = [\"a\"]\n", `d.toml:1: missing "name"`},
		{"missing args", "\nname = \"x\"\n", `d.toml:2: missing "args"`},
		{"bad kind", "name = \"x\"\nargs = [\"a\"]\n\n[tools.shell]\nkind = \"run\"\n", `d.toml:4: kind "run" is not one of`},
		{"bad kind inline", "name = \"x\"\nargs = [\"a\"]\n[tools]\n\"my tool\" = { kind = \"run\" }\n", `d.toml:4: kind "run"`},
		{"bad output", "name = \"x\"\nargs = [\"a\"]\n[tools.shell]\nkind = \"execute\"\n[tools.edit]\noutput = \"html\"\n", `d.toml:5: output "html"`},
		{"diff without path", "name = \"x\"\nargs = [\"a\"]\n[tools.edit]\ndiff_new = \"new\"\n", `d.toml:3: diff_new needs path`},
		{"bad models", "name = \"x\"\nargs = [\"a\"]\nmodels = \"ask\"\n", `d.toml:3: models = "ask" is not one of`},
		{"mode without id", "name = \"x\"\nargs = [\"a\"]\n[[modes]]\nid = \"a\"\n[[modes]]\nname = \"B\"\n", `d.toml:5: missing "id" in a mode`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDialect("d.toml", []byte(tt.data))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) && !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one starting %q", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "d.toml:") {
				t.Errorf("error %q does not start with the file and line", err)
			}
		})
	}
}
