package pty

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/internal/recording"
)

func out(ms int, s string) termStep {
	return termStep{dir: recording.FromAgent, delay: time.Duration(ms) * time.Millisecond, data: []byte(s)}
}

func in(ms int, s string) termStep {
	return termStep{dir: recording.ToAgent, delay: time.Duration(ms) * time.Millisecond, data: []byte(s)}
}

// Machine values are replaced across read boundaries, a UTF-8 character cut
// by a read moves whole into the next step (with the time it arrived), and
// the typed side is normalised as a stream of its own.
func TestNormaliseSteps(t *testing.T) {
	m := machineValues{home: "/root", tmp: "/var/tmp", user: "alice", host: "build-7"}
	rs := m.replacements("/var/tmp/T123/project", []string{"HOME=/srv/h"})
	tests := []struct {
		name     string
		in, want []termStep
	}{
		{"cwd cut by a read",
			[]termStep{out(1, "in /var/tmp/T1"), out(2, "23/project now")},
			[]termStep{out(1, "in /home/user/project"), out(2, " now")}},
		{"home, agent's home, temp, user and host",
			[]termStep{out(0, "/root/x /srv/h/y /var/tmp/z alice@build-7 malice")},
			[]termStep{out(0, "/home/user/x /home/user/y /tmp/z user@host malice")}},
		{"dates and times",
			[]termStep{out(0, "at 2026-11-23 23:06:50.")},
			[]termStep{out(0, "at 2000-01-01 00:00:00.")}},
		{"a character cut by a read",
			[]termStep{out(1, "a\xe2\x94"), out(2, "\x80b")},
			[]termStep{out(1, "a"), out(2, "─b")}},
		{"a read of only part of a character",
			[]termStep{out(1, "\xe2"), out(2, "\x94"), out(3, "\x80")},
			[]termStep{out(6, "─")}},
		{"directions apart",
			[]termStep{out(0, "/root"), in(1, "cd /root\r"), out(2, "ok")},
			[]termStep{out(0, "/home/user"), in(1, "cd /home/user\r"), out(2, "ok")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := normaliseSteps(tt.in, rs)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// A step's bytes survive the fixture encoding, JSON text where they are
// UTF-8 and base64 where they are not.
func TestStepEncoding(t *testing.T) {
	tests := []struct {
		step termStep
		line string
	}{
		{out(12, "\x1b[1m<b> & ─\x07"), `{"t_ms":12,"out":"\u001b[1m<b> & ─\u0007"}`},
		{in(0, "\x1b[200~hi\x1b[201~\r"), `{"t_ms":0,"in":"\u001b[200~hi\u001b[201~\r"}`},
		{out(3, "bad \xff byte"), `{"t_ms":3,"b64":"YmFkIP8gYnl0ZQ=="}`},
	}
	for _, tt := range tests {
		s, err := encodeStep(tt.step)
		if err != nil {
			t.Fatal(err)
		}
		if string(s.Line) != tt.line || s.Dir != tt.step.dir {
			t.Errorf("encodeStep(%q) = %s %s, want %s", tt.step.data, s.Dir, s.Line, tt.line)
		}
		back, err := decodeStep(s)
		if err != nil || !bytes.Equal(back.data, tt.step.data) || back.delay != tt.step.delay {
			t.Errorf("decodeStep(%s) = %q, %v, %v; want %q", s.Line, back.data, back.delay, err, tt.step.data)
		}
	}
	if _, err := decodeStep(recording.Step{Dir: recording.FromAgent, Line: []byte(`{"t_ms":1,"in":"x"}`)}); err == nil {
		t.Error(`a "> " step with "in" decoded without error`)
	}
}
