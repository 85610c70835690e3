package pty

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// A PTY recording is a fixture (see package recording) whose agent section
// holds what crossed the terminal: "> " steps are what the agent wrote on
// it, "< " steps what the bridge typed (keys, pastes, and the emulator's
// answers to the agent's terminal queries). Each step is
//
//	{"t_ms":12,"out":"…"}   (a "<" step says "in" instead of "out")
//
// where t_ms is the milliseconds since the previous step and the bytes are
// JSON text. Bytes that are not UTF-8 cannot be JSON text, so such a step
// carries them as base64 in "b64" instead; the recorder moves a UTF-8
// sequence cut by a read boundary into the next step first, so only bytes
// that are really not UTF-8 need it. The meta section says adapter: pty,
// the profile, and the terminal's cols and rows.

// termStep is one step of a PTY recording, decoded.
type termStep struct {
	dir   recording.Dir
	delay time.Duration
	data  []byte
}

// stepJSON is a step's wire form; Out or In by direction.
type stepJSON struct {
	TMs int64   `json:"t_ms"`
	Out *string `json:"out,omitempty"`
	In  *string `json:"in,omitempty"`
	B64 []byte  `json:"b64,omitempty"`
}

// encodeStep is the fixture step of st.
func encodeStep(st termStep) (recording.Step, error) {
	j := stepJSON{TMs: st.delay.Milliseconds()}
	if utf8.Valid(st.data) {
		s := string(st.data)
		if st.dir == recording.FromAgent {
			j.Out = &s
		} else {
			j.In = &s
		}
	} else {
		j.B64 = st.data
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<" and "&" stay readable
	if err := enc.Encode(j); err != nil {
		return recording.Step{}, err
	}
	return recording.Step{Dir: st.dir, Line: bytes.TrimRight(buf.Bytes(), "\n")}, nil
}

// decodeStep reads a fixture step of a PTY recording.
func decodeStep(s recording.Step) (termStep, error) {
	var j stepJSON
	if err := json.Unmarshal(s.Line, &j); err != nil {
		return termStep{}, fmt.Errorf("reading PTY step %s: %w", s.Line, err)
	}
	st := termStep{dir: s.Dir, delay: time.Duration(j.TMs) * time.Millisecond}
	text := j.Out
	if s.Dir == recording.ToAgent {
		text = j.In
	}
	switch {
	case text != nil:
		st.data = []byte(*text)
	case j.B64 != nil:
		st.data = j.B64
	default:
		key := "out"
		if s.Dir == recording.ToAgent {
			key = "in"
		}
		return termStep{}, fmt.Errorf("PTY step %s has neither %q nor \"b64\"", s.Line, key)
	}
	return st, nil
}

// decodeSteps reads every step of a recording's agent section.
func decodeSteps(r recording.StepReader) ([]termStep, error) {
	var out []termStep
	for {
		s, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		st, err := decodeStep(s)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
}
