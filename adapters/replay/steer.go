package replay

import (
	"bytes"
	"io"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// Steering (_session/steering) is served where the recording has it: a
// user message the host wrote into a running turn (with a uuid and a
// priority, as the bridge writes one). The wrapped adapter writes the
// editor's message to the player, which takes it as the recorded one at
// that point and plays on, the CLI's answers naming the live message
// (streamplayer's uuid mapping). A recording without one is not offered
// as steerable: the player would queue the message for a next prompt the
// recording does not have, and the turn would never see it answered.

// steerable reports whether the recording holds a steered message (the
// wrapped adapter's Info must declare steering too).
func (a *Adapter) steerable() bool {
	a.steeredOnce.Do(func() {
		var err error
		if a.steered, err = hasSteered(a.src); err != nil {
			a.steered = false
		}
	})
	return a.steered
}

// hasSteered reports whether the script holds a user message written into
// a running turn: one with a priority.
func hasSteered(src source) (bool, error) {
	sr, err := src.script()
	if err != nil {
		return false, err
	}
	defer sr.Close()
	for {
		st, err := sr.Next()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if st.Dir == recording.ToAgent && bytes.Contains(st.Line, []byte(`"type":"user"`)) && bytes.Contains(st.Line, []byte(`"priority":`)) {
			return true, nil
		}
	}
}
