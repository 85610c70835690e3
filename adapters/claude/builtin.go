package claude

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// BuiltinDialect returns the built-in dialect called name: claude (Claude
// Code) or qwen (Qwen Code in its stream-JSON mode).
func BuiltinDialect(name string) (*Dialect, bool) {
	switch name {
	case "claude":
		return Claude(), true
	case "qwen":
		return Qwen(), true
	}
	return nil, false
}

// BuiltinDialects are the names of the built-in dialects.
func BuiltinDialects() []string { return []string{"claude", "qwen"} }

// LoadDialect returns the built-in dialect called nameOrFile, or reads the
// dialect file of that path. Errors name the file and line.
func LoadDialect(nameOrFile string) (*Dialect, error) {
	if d, ok := BuiltinDialect(nameOrFile); ok {
		return d, nil
	}
	data, err := os.ReadFile(nameOrFile)
	if err != nil {
		if !strings.ContainsAny(nameOrFile, "/.") {
			return nil, fmt.Errorf("%q is neither a built-in dialect (%s) nor a file: %w",
				nameOrFile, strings.Join(BuiltinDialects(), ", "), err)
		}
		return nil, fmt.Errorf("reading dialect: %w", err)
	}
	return ParseDialect(nameOrFile, data)
}

// PrintBuiltin returns the dialect file of the built-in dialect name: the
// template a user's own starts from.
func PrintBuiltin(name string) ([]byte, error) {
	d, ok := BuiltinDialect(name)
	if !ok {
		return nil, fmt.Errorf("no built-in dialect %q (there are %s)", name, strings.Join(BuiltinDialects(), ", "))
	}
	return PrintDialect(d)
}

// ModeIDs are the ids of the dialect's permission modes.
func (d *Dialect) ModeIDs() []string {
	out := make([]string, 0, len(d.Modes))
	for _, m := range d.Modes {
		out = append(out, m.ID)
	}
	return slices.Clip(out)
}
