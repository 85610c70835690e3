package pty

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Explain runs the agent of o on a terminal and writes to out, each time
// its screen settles on something new, the screen with its lines
// numbered and which of profile p's patterns match it (idle, busy, each
// dialog, each start-up dialog, chrome), and what the bridge would make of
// it: what `acpbridge pty --explain` shows while one writes a profile. Each
// line read from in is typed as a prompt (with the profile's submit keys);
// a line ":keys KEY..." types keys instead (":keys y", ":keys down
// enter"). It returns at the end of in, once the screen has settled and
// been shown, having stopped the agent; or when the agent ends.
func Explain(ctx context.Context, p *Profile, o Options, in io.Reader, out io.Writer) error {
	a, err := New(p, o)
	if err != nil {
		return err
	}
	o = a.opts
	cwd, _ := os.Getwd()
	s, err := startSession(ctx, "explain", acp.NewSessionRequest{Cwd: cwd}, nil, p, &o)
	if err != nil {
		return err
	}
	defer s.Close()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-s.exited:
				return
			}
		}
	}()
	x := explainer{s: s, out: out, start: o.Now()}
	var ending time.Time // when in ended
	for {
		v := s.scr.view()
		// A settled screen, or one that keeps changing (a spinner, a
		// streaming reply) every showEvery: a frame caught whole. The
		// first frame after a settled one is shown too.
		if q := s.quiet(v); v.seq != x.shown && (q || s.still(v) >= settle && (x.settled || o.Now().Sub(x.at) >= showEvery)) {
			x.show(v)
			x.settled = q
		}
		if !ending.IsZero() && (v.seq == x.shown && s.still(v) >= time.Duration(p.StartQuiet) ||
			o.Now().Sub(ending) >= time.Duration(p.Start)) {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.exited:
			x.show(s.scr.view())
			werr := s.proc.Wait()
			fmt.Fprintf(out, "── %s ended (%v)\n", o.Name, werr)
			return nil
		case l, ok := <-lines:
			if !ok {
				// What was typed last may yet change the screen: end once
				// it has settled and been shown (or after the start-up
				// window).
				lines, ending = nil, o.Now()
				continue
			}
			if err := x.typeLine(l); err != nil {
				return err
			}
		case <-s.scr.changed:
		case <-time.After(tick):
		}
	}
}

// explainer is the state of Explain: the screen last shown.
type explainer struct {
	s       *session
	out     io.Writer
	start   time.Time
	shown   uint64
	at      time.Time // when a screen was last shown
	first   bool      // a screen was shown
	settled bool      // the screen last shown was quiet
}

// showEvery is how often Explain shows a screen that keeps changing.
const showEvery = 250 * time.Millisecond

// typeLine types a line read from the user.
func (x *explainer) typeLine(l string) error {
	if k, ok := strings.CutPrefix(l, ":keys"); ok {
		keys := Keys(strings.Fields(k))
		if name, bad := keys.unknown(); bad {
			fmt.Fprintf(x.out, "── unknown key %q (key names: %s, ctrl-a … ctrl-z)\n", name, keyNames())
			return nil
		}
		fmt.Fprintf(x.out, "── typing keys %s\n", strings.Join(keys, " "))
		return x.s.write(keys.Bytes(""))
	}
	fmt.Fprintf(x.out, "── typing %q and %s\n", l, strings.Join(x.s.p.Submit, " "))
	return x.s.write(x.s.typing(l, x.s.scr.view().paste))
}

// show writes the screen v and what the profile's patterns make of it.
func (x *explainer) show(v view) {
	if x.first && v.seq == x.shown {
		return
	}
	x.shown, x.first, x.at = v.seq, true, x.s.opts.Now()
	p := x.s.p
	var b strings.Builder
	fmt.Fprintf(&b, "── screen %d, %s after the start (cursor on line %d) ──\n", v.seq, x.s.opts.Now().Sub(x.start).Round(time.Millisecond), v.row+1)
	text := v.text
	lines := strings.Split(text, "\n")
	hidden := p.chromeBlocks(text, len(lines))
	var chrome []int
	for i, l := range lines {
		mark := ""
		if hidden[i] || p.isChrome(l) {
			mark, chrome = "  ← chrome", append(chrome, i+1)
		}
		fmt.Fprintf(&b, "%3d│%s%s\n", i+1, l, mark)
	}
	for _, m := range p.matches(text) {
		b.WriteString(m.String() + "\n")
	}
	if len(chrome) > 0 {
		fmt.Fprintf(&b, "chrome lines %s\n", joinInts(chrome))
	}
	fmt.Fprintf(&b, "=> %s\n", p.verdict(text))
	io.WriteString(x.out, b.String())
}

// verdict is what the bridge makes of a screen.
func (p *Profile) verdict(text string) string {
	busy := p.Busy.set() && p.Busy.MatchString(text)
	switch d, st := p.dialog(text), p.startup(text); {
	case st != nil && !p.idle(text):
		return fmt.Sprintf("start-up dialog %q: answered before the first prompt", st.Name)
	case d != nil:
		opts, _ := d.options(text)
		var labels []string
		for _, o := range opts {
			labels = append(labels, fmt.Sprintf("%s (%s)", o.Name, o.Kind))
		}
		return fmt.Sprintf("dialog %q, titled %q, options: %s", d.Name, d.title(text), strings.Join(labels, ", "))
	case p.idle(text):
		return fmt.Sprintf("idle: a turn ends here once the screen stays unchanged for %s", time.Duration(p.Quiet))
	case busy:
		return fmt.Sprintf("busy: the agent works (if it stays so on a screen that does not change for %s, the turn fails)", time.Duration(p.Unknown))
	}
	return fmt.Sprintf("unknown: neither idle, busy nor a dialog; a turn fails if it stays so, unchanged, for %s", time.Duration(p.Unknown))
}
