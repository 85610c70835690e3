package pty

import (
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// recorded is a recording decoded for the fuzz target.
type recorded struct {
	name  string
	p     *Profile
	steps []termStep
	cols  int
	rows  int
}

func loadRecorded(tb testing.TB) []recorded {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(recordDir, "*.txtar"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no recordings in %s (%v)", recordDir, err)
	}
	var out []recorded
	for _, path := range paths {
		fx, err := recording.Load(path)
		if err != nil {
			tb.Fatal(err)
		}
		p, err := FindProfile(fx.Meta["profile"], "")
		if err != nil {
			tb.Fatal(err)
		}
		steps, err := decodeSteps(recording.SliceSteps(fx.Script))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, recorded{name: filepath.Base(path), p: p, steps: steps, cols: 200, rows: 50})
	}
	return out
}

// look is what the engine decides from a screen where the bridge acts (at
// each typed step, and at the end): the screen, the reply read from it,
// and whether the turn would end there.
type look struct {
	text, title, reply string
	bells              int
	paste, idle        bool
}

// playScreens feeds the agent's output of r into a screen, each run of
// output between two typed steps cut at the offsets split returns, and
// returns what the engine would see at each point it acts.
func playScreens(r recorded, split func(run []byte) []int) []look {
	now := time.Unix(0, 0)
	scr := newScreen(r.cols, r.rows, func() time.Time { return now })
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = io.Copy(io.Discard, scr.replies()) // answers to terminal queries
	}()
	var looks []look
	var base []string
	prompt := ""
	at := func() {
		v := scr.view()
		lines, _ := replyLines(r.p.content(v.text), base, prompt)
		looks = append(looks, look{text: v.text, title: v.title, reply: strings.Join(lines, "\n"), bells: v.bells, paste: v.paste,
			idle: r.p.Idle.MatchString(v.text)})
	}
	var out []byte
	flush := func() {
		from := 0
		for _, c := range split(out) {
			if c > from && c < len(out) {
				_, _ = scr.Write(out[from:c])
				from = c
			}
		}
		_, _ = scr.Write(out[from:])
		out = out[:0]
	}
	for _, st := range r.steps {
		if st.dir == recording.FromAgent {
			out = append(out, st.data...)
			continue
		}
		flush()
		at()
		base = r.p.content(scr.view().above())
		prompt = typedBytes(st.data)
	}
	flush()
	at()
	scr.close()
	wg.Wait()
	return looks
}

// cutOffsets reads cuts as up to 64 big-endian 16-bit offsets into a run
// of n bytes, in increasing order. (Cutting everywhere is right too, but a
// screen renders after every write, and thousands of renders make one
// input take seconds.)
func cutOffsets(cuts []byte, n int) []int {
	var out []int
	for i := 0; i+1 < len(cuts) && len(out) < 64 && n > 1; i += 2 {
		out = append(out, 1+(int(cuts[i])<<8|int(cuts[i+1]))%(n-1))
	}
	slices.Sort(out)
	return out
}

// typedBytes is the text of a typed prompt (without paste brackets and
// Enter), as the reply is read below its echo.
func typedBytes(b []byte) string {
	s := strings.TrimSuffix(string(b), "\r")
	s = strings.TrimPrefix(s, "\x1b[200~")
	return strings.TrimSuffix(s, "\x1b[201~")
}

// FuzzPTYChunking cuts a recorded byte stream at arbitrary points (inside
// escape sequences, OSC titles and UTF-8 sequences) and checks that the
// screen, the reply read from it and the turn-end signals (idle screen,
// bells) are the same as with the recorded reads, wherever the engine
// looks. The seeds are the recordings of fixtures/pty, whole and cut at a
// few points.
func FuzzPTYChunking(f *testing.F) {
	recs := loadRecorded(f)
	for i := range recs {
		f.Add(uint8(i), []byte{0, 90, 2, 200})
		f.Add(uint8(i), []byte{2, 60, 6, 1, 254, 7, 7, 7})
		f.Add(uint8(i), []byte{})
	}
	wholes := make([][]look, len(recs))
	for i, r := range recs {
		wholes[i] = playScreens(r, func([]byte) []int { return nil })
	}
	f.Fuzz(func(t *testing.T, which uint8, cuts []byte) {
		r, whole := recs[int(which)%len(recs)], wholes[int(which)%len(recs)]
		cut := playScreens(r, func(run []byte) []int { return cutOffsets(cuts, len(run)) })
		if len(cut) != len(whole) {
			t.Fatalf("%s: %d looks, want %d", r.name, len(cut), len(whole))
		}
		for k := range whole {
			if cut[k] != whole[k] {
				t.Fatalf("%s, look %d, cut by %v:\ngot  %+v\nwant %+v", r.name, k, cuts, cut[k], whole[k])
			}
		}
	})
}

// Every recording, read as it was recorded, gives the reply and turn end
// the recorded session saw: the fuzz target's reference is right.
func TestRecordedLooks(t *testing.T) {
	t.Parallel()
	for _, r := range loadRecorded(t) {
		looks := playScreens(r, func([]byte) []int { return nil })
		last := looks[len(looks)-1]
		if !last.idle {
			t.Errorf("%s: the last screen is not idle:\n%s", r.name, last.text)
		}
	}
}
