package claude

import (
	"hash/maphash"

	"github.com/tidwall/gjson"
)

// Claiming streamed text: a complete assistant frame repeats what was
// streamed of it, which must not be shown twice.

// claim reports whether the part k of a complete assistant frame, the
// block b with its text under key, was streamed already: its message's
// part was, or (on the main thread) what was streamed since the last claim
// is exactly its text. Either way the main thread's streamed text is
// claimed. The text is decoded only when that decides: the frame of a
// long streamed reply repeats all of it.
func (t *translator) claim(k streamKey, b gjson.Result, key, parent string) bool {
	if parent != "" {
		return t.streamed[k]
	}
	i := 0
	if k.thought {
		i = 1
	}
	u := &t.unclaimed[i]
	claimed := t.streamed[k] || u.n > 0 && u.is(b.Get(key).String())
	u.reset()
	return claimed
}

// textDigest stands for a text streamed in pieces: its length and a hash,
// enough to tell whether a frame's text is the same text without keeping
// it. Kept whole, a long reply was held twice at its end (here and in the
// frame), which set the bridge's peak memory. Two different texts of the
// same length have the same 64-bit seeded hash with a chance of 2^-64.
type textDigest struct {
	n int
	h maphash.Hash
}

func (d *textDigest) add(s string) {
	d.n += len(s)
	d.h.WriteString(s)
}

func (d *textDigest) reset() {
	if d.n > 0 {
		d.n = 0
		d.h.Reset()
	}
}

// is reports whether s is the text added since the last reset; never for
// an empty one.
func (d *textDigest) is(s string) bool {
	return d.n > 0 && d.n == len(s) && maphash.String(d.h.Seed(), s) == d.h.Sum64()
}
