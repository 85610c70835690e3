package pty

import (
	"strings"
	"testing"
	"time"
)

// A pattern that keeps matching what stays on the screen holds a turn; the
// turn ends within the profile's unknown window with an error that names
// the pattern and says how to fix it, instead of hanging.
func TestPatternHoldingTheTurnFails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(p *Profile)
		prompt string
		want   []string
	}{
		{"busy matches the reply", func(p *Profile) {
			p.Busy = mustPattern(t, `You said`)
		}, "hello", []string{`the busy pattern has matched a screen that did not change for 1s`, `busy 'You said' may match text that stays on the screen`, `busy 'You said' matches line 4`}},
		{"an answered dialog still matches", func(p *Profile) {
			p.Dialogs = p.Dialogs[:1:1]
			p.Dialogs[0].Match = mustPattern(t, `I will run a command\.`)
		}, "please run it", []string{`dialog "run command" still matches 1s after its answer`, `its match 'I will run a command\.' may match what the answered dialog leaves`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := faketuiProfile(t)
			q.Unknown = Duration(time.Second)
			q.Dialogs = append([]Dialog(nil), q.Dialogs...)
			tt.change(q)
			c := newClient(choose("Yes"))
			s := fakeSession(t, q, c)
			start := time.Now()
			stop, err := prompt(t, deadline(t), s, tt.prompt)
			if err == nil {
				t.Fatalf("Prompt = %q, nil error after %s; want the pattern named", stop, time.Since(start).Round(time.Millisecond))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, err)
				}
			}
			// The bound is the unknown window (1s), with room for a loaded
			// machine, not the test's deadline.
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("the turn failed after %s", d.Round(time.Millisecond))
			}
		})
	}
}

func mustPattern(t *testing.T, re string) Pattern {
	t.Helper()
	var p Pattern
	if err := p.UnmarshalText([]byte(re)); err != nil {
		t.Fatal(err)
	}
	return p
}
