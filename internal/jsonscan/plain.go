package jsonscan

import "encoding/binary"

// SWAR masks: a byte's worth of 0x01, of 0x80, and the bytes plain looks for.
const (
	ones   = 0x0101010101010101
	highs  = 0x8080808080808080
	quotes = '"' * ones
	slashs = '\\' * ones
	spaces = ' ' * ones
)

// plain returns the index of the first byte of b from i on that ends a run
// of plain string contents (a quote, a backslash or a control character),
// or len(b). It tests eight bytes at a time: strings are most of the bytes
// of what the bridge reads (text deltas, tool output), and a byte at a time
// they were most of the time of reading them.
func plain(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		// A zero byte of v sets its high bit in (v-ones) &^ v; a byte
		// below 0x20 of w does the same in (w-spaces) &^ w. Bits above a
		// hit may be wrong, so the byte loop below finds which it is.
		q, s := w^quotes, w^slashs
		if ((q-ones)&^q|(s-ones)&^s|(w-spaces)&^w)&highs != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}
