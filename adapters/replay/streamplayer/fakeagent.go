package streamplayer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// Options tune a replay. The zero value plays the script as recorded, as
// fast as the host reads.
type Options struct {
	// SessionID, when set, replaces RecordedSessionID in every line written.
	SessionID string
	// RecordedSessionID is the session id in the recording (fixture meta
	// "session").
	RecordedSessionID string
	// Pace is a delay after each '>' line; 0 writes as fast as possible.
	Pace time.Duration
	// Logger, if set, receives one human-readable line per notable event
	// (unexpected input, synthesized answers).
	Logger io.Writer
	// StopOnOtherAnswer makes an answer to a permission request whose
	// behavior (allow or deny) is not the recorded one end the turn,
	// instead of playing on as recorded (see the package doc).
	StopOnOtherAnswer bool
}

// maxLine bounds one stdin line; prompts may carry base64 images.
const maxLine = 64 << 20

// errLineTooLong reports a stdin line over maxLine bytes.
var errLineTooLong = errors.New("stdin line too long")

// Run plays script against a host that writes stdin and reads stdout. See
// the package documentation for the rules.
func Run(ctx context.Context, script []recording.Step, stdin io.Reader, stdout io.Writer, opts Options) error {
	return Play(ctx, func() (recording.StepReader, error) { return recording.SliceSteps(script), nil }, stdin, stdout, opts)
}

// Play is Run for a script read one step at a time, so that a long
// recording is never held in memory. open must return a new reader from the
// script's first step on each call; Play calls it twice, for one cursor that
// plays the script and one that looks ahead for the steps the host is to
// send, and closes both before it returns. An error from open or from a
// reader ends Play with that error.
func Play(ctx context.Context, open func() (recording.StepReader, error), stdin io.Reader, stdout io.Writer, opts Options) error {
	p, err := newPlayer(ctx, open, stdout, opts)
	if err != nil {
		return err
	}
	defer p.close()
	lines := make(chan []byte, 16)
	stop := make(chan struct{})
	var (
		wg      sync.WaitGroup
		readErr error // written before lines is closed
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(lines)
		readErr = readLines(stdin, lines, stop)
	}()
	p.in = lines
	p.readErr = func() error { return readErr }

	err = p.run()
	if err != nil && ctx.Err() == nil {
		// A broken script ends the agent like a crash: what it wrote
		// before still reaches the host. (After a write error Flush
		// returns at once.)
		_ = p.w.Flush()
	}
	close(stop)
	if !p.eof {
		c, ok := stdin.(io.Closer)
		if !ok {
			return err // the reader may stay blocked in Read; see the package doc
		}
		c.Close()
	}
	wg.Wait()
	return err
}

// PlayFile opens the fixture at path (recording.Open) and plays its agent
// script with Play, reading it from the file as it goes.
// Options.RecordedSessionID defaults to the fixture's meta "session".
func PlayFile(ctx context.Context, path string, stdin io.Reader, stdout io.Writer, opts Options) error {
	rec, err := recording.Open(path)
	if err != nil {
		return err
	}
	if !rec.HasScript {
		return fmt.Errorf("%s: no %s section", path, recording.SectionAgent)
	}
	if opts.RecordedSessionID == "" {
		opts.RecordedSessionID = rec.Meta["session"]
	}
	return Play(ctx, rec.Script, stdin, stdout, opts)
}

// readLines sends each non-blank line of r, without its line ending, until
// EOF (nil), a read error, or stop is closed.
func readLines(r io.Reader, out chan<- []byte, stop <-chan struct{}) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 {
			select {
			case out <- line:
			case <-stop:
				return nil
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine returns a fresh copy of the next line without "\n" or "\r\n".
func readLine(br *bufio.Reader) ([]byte, error) {
	frag, err := br.ReadSlice('\n')
	line := append([]byte(nil), frag...)
	for err == bufio.ErrBufferFull {
		if len(line) > maxLine {
			return nil, errLineTooLong
		}
		frag, err = br.ReadSlice('\n')
		line = append(line, frag...)
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, err
}
