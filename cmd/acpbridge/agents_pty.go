package main

import (
	"os/exec"

	"github.com/acpbridge/acpbridge/adapters/pty"
)

// ptyReports are the lines of `acpbridge agents` for the built-in PTY
// profiles for users that name a command: the TUI served through d, the
// pty command, whether its command is installed here, and editor
// configuration that runs it with its profile and the arguments the
// profile needs. The CLI's version is not asked: a TUI may not answer
// --version without a terminal; the profile names the version it was
// written against.
func ptyReports(d adapterEntry, self string) []agentReport {
	install, args := map[string]string{}, map[string][]string{}
	for _, k := range installable() {
		install[k.exe], args[k.exe] = k.install, k.ptyArgs
	}
	var out []agentReport
	for _, p := range pty.Builtin() {
		if len(p.Commands) == 0 {
			continue // the generic profile: any REPL, named by the user
		}
		exe := p.Commands[0]
		r := agentReport{Name: d.name + ":" + p.Name, Title: p.Version + " TUI (profile " + p.Name + ", through a PTY)",
			Install: install[exe]}
		if r.Install == "" {
			r.Install = "see the agent's own installation instructions"
		}
		cmd := exe
		if path, err := exec.LookPath(exe); err != nil {
			r.Problem = err.Error()
		} else {
			r.Installed, r.Path, cmd = true, path, path
		}
		r.Args = append([]string{d.name, "--profile", p.Name, "--", cmd}, args[exe]...)
		label := p.Version + " TUI (acpbridge)"
		r.Zed = map[string]any{label: map[string]any{"type": "custom", "command": self, "args": r.Args}}
		r.JetBrains = map[string]any{label: map[string]any{"command": self, "args": r.Args}}
		r.Acpx = map[string]any{p.Name + "-tui-bridge": map[string]any{"command": shellJoin(append([]string{self}, r.Args...))}}
		out = append(out, r)
	}
	return out
}
