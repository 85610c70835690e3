package pty

import (
	"strconv"
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// dialog is the profile's dialog on the screen, or nil.
func (p *Profile) dialog(text string) *Dialog {
	for i := range p.Dialogs {
		if p.Dialogs[i].Match.MatchString(text) {
			return &p.Dialogs[i]
		}
	}
	return nil
}

// title is the permission request's title: Title's groups or match (each
// match's, with TitleAll), else the dialog's name.
func (d *Dialog) title(text string) string {
	if !d.TitleAll || !d.Title.set() {
		return titleOf(d.Title, text, d.Name)
	}
	var all []string
	for _, m := range d.Title.FindAllStringIndex(text, -1) {
		if t := titleOf(d.Title, text[m[0]:m[1]], ""); t != "" {
			all = append(all, t)
		}
	}
	if len(all) == 0 {
		return d.Name
	}
	return strings.Join(all, ", ")
}

// titleOf is what title matches in text: its non-empty groups joined by
// ": " (a dialog's heading and the command it asks about), or the whole
// match without groups; fallback when it is unset or does not match.
func titleOf(title Pattern, text, fallback string) string {
	if !title.set() {
		return fallback
	}
	m := title.FindStringSubmatch(text)
	if m == nil {
		return fallback
	}
	if len(m) == 1 {
		return strings.TrimSpace(m[0])
	}
	var parts []string
	for _, g := range m[1:] {
		if g = strings.TrimSpace(g); g != "" {
			parts = append(parts, g)
		}
	}
	return strings.Join(parts, ": ")
}

// options are the dialog's options as ACP offers them, with the keys that
// choose each.
func (d *Dialog) options(text string) ([]acp.PermissionOption, map[acp.PermissionOptionID][]byte) {
	var opts []acp.PermissionOption
	keys := map[acp.PermissionOptionID][]byte{}
	add := func(label, kind string, k []byte) {
		id := acp.PermissionOptionID(strconv.Itoa(len(opts) + 1))
		opts = append(opts, acp.PermissionOption{OptionID: id, Name: label, Kind: acp.PermissionOptionKind(kind)})
		keys[id] = k
	}
	for _, o := range d.Options {
		add(o.Label, o.Kind, o.Keys.Bytes(""))
	}
	if !d.OptionLine.set() {
		return opts, keys
	}
	ki, li := d.OptionLine.SubexpIndex("key"), d.OptionLine.SubexpIndex("label")
	for _, m := range d.OptionLine.FindAllStringSubmatch(text, -1) {
		label := strings.TrimSpace(m[li])
		add(label, d.kind(label), d.Answer.Bytes(m[ki]))
	}
	return opts, keys
}

// kind maps an option's label to an ACP kind (allow_once by default).
func (d *Dialog) kind(label string) string {
	for _, k := range kindOrder {
		if re, ok := d.Kinds[k]; ok && re.MatchString(label) {
			return k
		}
	}
	return string(acp.PermissionOptionKindAllowOnce)
}
