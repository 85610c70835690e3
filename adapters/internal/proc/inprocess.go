package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// errStopped breaks the pipes of an in-process agent that ignored both
// stdin EOF and its cancelled context.
var errStopped = errors.New("in-process agent stopped")

// InProcess runs run on a goroutine as a stand-in for an agent process,
// connected through io.Pipe: what the host writes to Stdin, run reads from
// stdin, and what run writes to stdout, the host reads from Stdout. It serves
// replays and tests.
//
// Closing Stdin gives run EOF. When run returns, Stdout reports EOF, writes
// to Stdin fail with io.ErrClosedPipe (as with a dead process), and Wait
// returns run's error. Stop closes Stdin, waits DefaultGrace, cancels run's
// ctx, waits again, then breaks both pipes (so a run blocked on them
// returns), waits once more and reports an "unresponsive" error if run still
// has not returned.
func InProcess(name string, run func(ctx context.Context, stdin io.Reader, stdout io.Writer) error) Process {
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &inProc{
		name:   name,
		grace:  DefaultGrace,
		inR:    inR,
		inW:    inW,
		outR:   outR,
		cancel: cancel,
		done:   make(chan struct{}),
	}
	go func() {
		err := run(ctx, inR, outW)
		outW.Close()
		inR.CloseWithError(io.ErrClosedPipe)
		p.err = err
		cancel()
		close(p.done)
	}()
	return p
}

type inProc struct {
	name   string
	grace  time.Duration
	inR    *io.PipeReader
	inW    *io.PipeWriter
	outR   *io.PipeReader
	cancel context.CancelFunc
	done   chan struct{} // closed when run has returned
	err    error         // run's result, written before done is closed
}

func (p *inProc) Stdin() io.WriteCloser { return p.inW }
func (p *inProc) Stdout() io.Reader     { return p.outR }
func (p *inProc) Pid() int              { return 0 }
func (p *inProc) StderrTail() string    { return "" }

func (p *inProc) Wait() error {
	<-p.done
	return p.err
}

func (p *inProc) Stop(ctx context.Context) error {
	p.inW.Close()
	if waitCtx(ctx, p.done, p.grace) {
		return p.err
	}
	p.cancel()
	if waitCtx(ctx, p.done, p.grace) {
		return p.err
	}
	p.outR.CloseWithError(errStopped)
	p.inR.CloseWithError(errStopped)
	if waitFor(p.done, p.grace) {
		return p.err
	}
	return fmt.Errorf("stopping %s: unresponsive in-process agent", p.name)
}
