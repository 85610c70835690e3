package pty

// Checks of a parsed profile: every error names the file and the line.

import (
	"fmt"
	"slices"
	"strings"
)

func (p *Profile) validate(src source) error {
	switch {
	case p.Name == "":
		return missing(1, "name", "the profile")
	case !p.Idle.set():
		return missing(1, "idle", "the profile")
	}
	for _, k := range []struct {
		name string
		keys Keys
	}{{"submit", p.Submit}, {"interrupt", p.Interrupt}} {
		if err := checkKeys(src.top(k.name), k.name, k.keys); err != nil {
			return err
		}
	}
	for i := range p.Dialogs {
		if err := p.Dialogs[i].validate(src); err != nil {
			return err
		}
	}
	for i := range p.Startup {
		if err := p.Startup[i].validate(src); err != nil {
			return err
		}
	}
	if p.Login != nil && !p.Login.Match.set() {
		return missing(src.table("login"), "match", "[login]")
	}
	if t := p.Transcript; t != nil {
		switch {
		case t.Path == "":
			return missing(1, "path", "[transcript]")
		case t.Text == "":
			return missing(1, "text", "[transcript]")
		}
	}
	return nil
}

func (s *Startup) validate(src source) error {
	where := fmt.Sprintf("[[startup]] %q", s.Name)
	switch {
	case s.Name == "":
		return missing(s.line, "name", "[[startup]]")
	case !s.Match.set():
		return missing(s.line, "match", where)
	case len(s.Keys) == 0 && len(s.Options) == 0:
		return missing(s.line, "keys", where+" (or option)")
	case len(s.Keys) != 0 && len(s.Options) != 0:
		return fmt.Errorf("%d: %s has both keys and option: answer it or ask it, not both", s.line, where)
	}
	if err := checkKeys(src.in(s.line, "keys"), where, s.Keys); err != nil {
		return err
	}
	return validOptions(src, s.line, where, s.Options)
}

var kindOrder = []string{"allow_always", "reject_always", "reject_once", "allow_once"}

func (d *Dialog) validate(src source) error {
	where := fmt.Sprintf("[[dialog]] %q", d.Name)
	switch {
	case d.Name == "":
		return missing(d.line, "name", "[[dialog]]")
	case !d.Match.set():
		return missing(d.line, "match", where)
	case len(d.Options) == 0 && !d.OptionLine.set():
		return missing(d.line, "option", where+" (or option_line)")
	}
	if d.OptionLine.set() {
		names := d.OptionLine.SubexpNames()
		if !slices.Contains(names, "key") || !slices.Contains(names, "label") {
			return fmt.Errorf("%d: option_line of %s needs the groups (?P<key>…) and (?P<label>…)", src.in(d.line, "option_line"), where)
		}
	}
	for k := range d.Kinds {
		if !slices.Contains(kindOrder, k) {
			return fmt.Errorf("%d: unknown permission kind %q in %s (want one of %s)", src.in(d.line, "kinds"), k, where, strings.Join(kindOrder, ", "))
		}
	}
	if err := checkKeys(src.in(d.line, "answer"), "answer of "+where, d.Answer); err != nil {
		return err
	}
	return validOptions(src, d.line, where, d.Options)
}

// validOptions checks the options of the table at line; an error names
// the option's own line.
func validOptions(src source, line int, where string, opts []Option) error {
	for i := range opts {
		o := &opts[i]
		o.line = src.option(line, o.Label)
		switch {
		case o.Label == "":
			return missing(line, "label", where+" option")
		case len(o.Keys) == 0:
			return missing(o.line, "keys", fmt.Sprintf("%s option %q", where, o.Label))
		case !slices.Contains(kindOrder, o.Kind):
			return fmt.Errorf("%d: option %q of %s has kind %q (want one of %s)", o.line, o.Label, where, o.Kind, strings.Join(kindOrder, ", "))
		}
		if err := checkKeys(o.line, fmt.Sprintf("option %q of %s", o.Label, where), o.Keys); err != nil {
			return err
		}
	}
	return nil
}
