package readwindow

import (
	"bytes"
	"io"
	"testing"
	"testing/synctest"
	"time"
)

// timed is a source whose bytes come in chunks, each written at its time,
// read as from a pipe: Read waits for the next chunk and takes all that
// has been written (as much as fits), ReadNow takes that without waiting.
type timed struct {
	start  time.Time
	chunks [][]byte
	due    []time.Duration
	reads  int
}

func (s *timed) take(b []byte) int {
	n := copy(b, s.chunks[0])
	if s.chunks[0] = s.chunks[0][n:]; len(s.chunks[0]) == 0 {
		s.chunks, s.due = s.chunks[1:], s.due[1:]
	}
	return n
}

func (s *timed) Read(b []byte) (int, error) {
	s.reads++
	if len(s.chunks) == 0 {
		return 0, io.EOF
	}
	if d := s.due[0] - time.Since(s.start); d > 0 {
		time.Sleep(d)
	}
	return s.written(b), nil
}

func (s *timed) written(b []byte) int {
	n := 0
	for n < len(b) && len(s.chunks) > 0 && s.due[0] <= time.Since(s.start) {
		n += s.take(b[n:])
	}
	return n
}

// quiet is a timed source that can also be read without waiting.
type quiet struct{ *timed }

func (s quiet) ReadNow(b []byte) (int, error) {
	if len(s.chunks) == 0 {
		return 0, io.EOF
	}
	return s.written(b), nil
}

// FuzzRead: whatever the chunks of a stream, their timing, the read
// buffer's size and the source's kind, the window hands on the stream's
// bytes whole and in order, tags batches only when it read them with
// ReadNow, each with a new tag, and lets no byte wait longer than the
// window.
func FuzzRead(f *testing.F) {
	f.Add([]byte("a\nb\nc\nd\ne\nf\n"), []byte{2, 0, 2, 0, 2, 0, 1, 0}, 64, true)
	f.Add([]byte("{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n"), []byte{8, 1, 8, 1, 8, 200}, 5, false)
	f.Add([]byte("x\ny\nz\n"), []byte{1, 255, 3, 0, 1, 1}, 2, true)
	f.Fuzz(func(t *testing.T, data, plan []byte, size int, now bool) {
		size = 1 + min(max(size, 0), 1<<10)
		synctest.Test(t, func(t *testing.T) {
			const window = time.Millisecond
			src := &timed{start: time.Now()}
			at := time.Duration(0)
			for rest, i := data, 0; len(rest) > 0; i += 2 {
				n, gap := 1, byte(0)
				if i+1 < len(plan) {
					n, gap = 1+int(plan[i]), plan[i+1]
				}
				n = min(n, len(rest))
				at += time.Duration(gap) * 10 * time.Microsecond
				src.chunks = append(src.chunks, rest[:n])
				src.due = append(src.due, at)
				rest = rest[n:]
			}
			var r io.Reader = src
			if now {
				r = quiet{src}
			}
			var due []time.Duration // when each byte was written
			for i, c := range src.chunks {
				for range c {
					due = append(due, src.due[i])
				}
			}
			w := New(r, window)
			var got []byte
			var last uint64
			buf := make([]byte, size)
			for {
				n, err := w.Read(buf)
				if n > 0 {
					if late := time.Since(src.start) - due[len(got)]; late > window {
						t.Fatalf("byte %d read %v after it was written; the window is %v", len(got), late, window)
					}
				}
				got = append(got, buf[:n]...)
				if tag := w.Batch(); tag != 0 {
					if !now || tag <= last || n == 0 {
						t.Fatalf("read %d: batch tag %d after %d (ReadNow %v)", n, tag, last, now)
					}
					last = tag
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("read %q, want %q", got, data)
			}
		})
	})
}
