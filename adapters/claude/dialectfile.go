package claude

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// ParseDialect reads a dialect from a TOML file a user wrote (the format is
// Dialect's fields, by their toml names; PrintDialect writes a template).
// Errors name the file and the line: a syntax error, an unknown key, a
// missing or bad value.
func ParseDialect(file string, data []byte) (*Dialect, error) {
	var d Dialect
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, dialectDecodeError(file, err)
	}
	modes := headerLines(data, regexp.MustCompile(`^\[\[\s*modes\s*\]\]`))
	for i := range d.Modes {
		if i < len(modes) {
			d.Modes[i].line = modes[i]
		}
	}
	if err := d.validate(data); err != nil {
		return nil, fmt.Errorf("%s:%w", file, err)
	}
	return &d, nil
}

func dialectDecodeError(file string, err error) error {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		e := sm.Errors[0]
		row, _ := e.Position()
		return fmt.Errorf("%s:%d: unknown key %q", file, row, strings.Join(e.Key(), "."))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return fmt.Errorf("%s:%d: %s", file, row, de.Error())
	}
	return fmt.Errorf("%s: %w", file, err)
}

// validate checks what decoding cannot; errors start with the line.
func (d *Dialect) validate(data []byte) error {
	at := func(key string) int { return keyLine(data, key) }
	switch {
	case d.Name == "":
		return fmt.Errorf("1: missing %q", "name")
	case len(d.Args) == 0:
		return fmt.Errorf("%d: missing %q: the flags that put the CLI in stream-JSON mode", max(at("name"), 1), "args")
	}
	for k, allowed := range map[string][]string{
		"models":        {"", "initialize", "get_available_models", "none"},
		"commands":      {"", "initialize", "supported_commands", "none"},
		"transcripts":   {"", "claude", "none"},
		"builtin_tools": {"", "claude", "none"},
	} {
		if v := d.field(k); !slices.Contains(allowed, v) {
			return fmt.Errorf("%d: %s = %q is not one of %s", at(k), k, v, strings.Join(allowed[1:], ", "))
		}
	}
	for _, m := range d.Modes {
		if m.ID == "" {
			return fmt.Errorf("%d: missing %q in a mode", m.line, "id")
		}
	}
	names := make([]string, 0, len(d.Tools))
	for n := range d.Tools {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := d.Tools[n].validate(toolLine(data, n)); err != nil {
			return err
		}
	}
	return nil
}

// field is a string setting by its toml name, for validate.
func (d *Dialect) field(k string) string {
	switch k {
	case "models":
		return d.Models
	case "commands":
		return d.Commands
	case "transcripts":
		return d.Transcripts
	}
	return d.BuiltinTools
}

func (tl Tool) validate(line int) error {
	if tl.Kind != "" && !slices.Contains(toolKinds(), acp.ToolKind(tl.Kind)) {
		kinds := make([]string, 0, 10)
		for _, k := range toolKinds() {
			kinds = append(kinds, string(k))
		}
		return fmt.Errorf("%d: kind %q is not one of %s", line, tl.Kind, strings.Join(kinds, ", "))
	}
	if !slices.Contains([]string{"", "text", "console", "none"}, tl.Output) {
		return fmt.Errorf("%d: output %q is not one of text, console, none", line, tl.Output)
	}
	if tl.DiffNew != "" && tl.Path == "" {
		return fmt.Errorf("%d: diff_new needs path: the file the diff is of", line)
	}
	return nil
}

// keyLine is the line of the first "key =" at the start of a line, or 1.
func keyLine(data []byte, key string) int {
	re := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(key) + `\s*=`)
	if l := headerLines(data, re); len(l) > 0 {
		return l[0]
	}
	return 1
}

// toolLine is the line of a tool's table ([tools.NAME], quoted or not),
// or of its inline entry (NAME = {...}) inside [tools], or 1.
func toolLine(data []byte, name string) int {
	q := regexp.QuoteMeta(name)
	re := regexp.MustCompile(`^\s*(\[\s*tools\s*\.\s*("` + q + `"|'` + q + `'|` + q + `)\s*\]|("` + q + `"|` + q + `)\s*=\s*\{)`)
	if l := headerLines(data, re); len(l) > 0 {
		return l[0]
	}
	return 1
}

// headerLines are the numbers of the lines re matches, in order.
func headerLines(data []byte, re *regexp.Regexp) []int {
	var out []int
	for i, l := range strings.Split(string(data), "\n") {
		if re.MatchString(l) {
			out = append(out, i+1)
		}
	}
	return out
}

// PrintDialect writes d as a dialect file: the template a user starts from
// (acpbridge stream-json --print-dialect NAME).
func PrintDialect(d *Dialect) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The %s dialect of acpbridge's stream-JSON engine.\n", d.Name)
	b.WriteString("# Use a copy with: acpbridge stream-json --dialect FILE -- CMD ARGS\n")
	b.WriteString("# (docs/stream-json-dialects.md describes every key).\n\n")
	enc := toml.NewEncoder(&b)
	enc.SetIndentTables(true)
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("encoding the %s dialect: %w", d.Name, err)
	}
	if len(d.Tools) == 0 {
		b.WriteString(toolExample)
	}
	return b.Bytes(), nil
}

// toolExample shows a tool entry in a template without one.
const toolExample = `
# A tool of the CLI, by name (overrides builtin_tools for that name):
# [tools.run_shell_command]
#   kind = "execute"            # read, edit, delete, move, search, execute, think, fetch, switch_mode, other
#   title = "{command}"         # {field} is a member of the tool's input
#   content = "description"     # a member shown as text
#   output = "console"          # text (default), console or none
# [tools.edit]
#   kind = "edit"
#   title = "Edit {file_path}"
#   path = "file_path"          # the file: a location, and the file of the diff
#   diff_old = "old_string"
#   diff_new = "new_string"
`
