package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
)

// Stream carries whole JSON-RPC messages; framing lives below it.
//
// Concurrency and lifetime: Read is called by one goroutine at a time, and
// the message it returns may be overwritten by the next Read; Write
// may be called concurrently, and each call writes one message atomically.
// Read and Write return early, with the context's cause, when ctx is done
// before the message is taken or queued. Write must not retain msg after it
// returns. A concurrent Close unblocks Read, and a Write blocked in a writer
// that closing interrupts (a pipe, a socket). Close may be called more than
// once.
//
// A Conn calls Write from its one writer goroutine only, in the order the
// messages were sent.
type Stream interface {
	// Read returns the next raw message. It returns io.EOF at the end of the
	// input, a *TooLargeError for an oversized message, or an error wrapping
	// ErrParse for malformed framing; after those two the stream stays usable.
	Read(ctx context.Context) ([]byte, error)
	// Write writes one raw message (without framing; for newline-delimited
	// framing it must not contain a newline).
	Write(ctx context.Context, msg []byte) error
	// Close releases the stream.
	Close() error
}

// DefaultMaxMessageSize is the default StdioOptions.MaxMessageSize: prompts
// carry base64 images, so a message may be large.
const DefaultMaxMessageSize = 64 << 20

// StdioOptions configures NewStdio. The zero value is usable.
type StdioOptions struct {
	// MaxMessageSize is the largest message Read returns, in bytes (not
	// counting framing). Zero means DefaultMaxMessageSize.
	MaxMessageSize int
	// Trace, if set, is called with every raw message read (in=true) or
	// written (in=false), without framing, in the order they crossed the
	// stream. It must not retain or modify msg.
	Trace func(in bool, msg []byte)
}

// TooLargeError is returned by Read for a message over the size limit. The
// message has been skipped and the stream stays usable.
type TooLargeError struct {
	// Size is the size of the skipped message in bytes (for Content-Length
	// framing, the size it declared).
	Size int
	// Limit is the configured maximum.
	Limit int
	// ID is the message's id when its first bytes name one (the zero ID
	// otherwise), so that the refusal can answer the request and the
	// sender does not wait forever for it.
	ID ID
	// response is set when the message is a response (its first bytes
	// have "result" or "error" and no "method"): it must not be answered,
	// but the call it answers can be failed.
	response bool
}

// tooLarge returns the error for a message of size bytes whose first bytes
// are head.
func tooLarge(size, limit int, head []byte) *TooLargeError {
	h := scanHead(head)
	return &TooLargeError{Size: size, Limit: limit, ID: h.id, response: h.response}
}

// Error says how large the message was and what the limit is.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("message of %d bytes exceeds the %s limit", e.Size, formatSize(e.Limit))
}

func formatSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// errStreamClosed is returned by Read and Write after Close.
var errStreamClosed = errors.New("stream closed")

// framing is how messages are delimited on a stdio stream.
type framing int32

const (
	framingUnknown framing = iota
	framingNDJSON
	framingContentLength
)

const (
	readBufferSize  = 64 << 10
	writeBufferSize = 64 << 10
)

// stdio is the Stream over a byte reader and writer.
type stdio struct {
	r      io.Reader
	w      io.Writer
	trace  func(bool, []byte)
	in     reader
	inline bool // Read reads in, on the caller's goroutine; no pump

	// framing is written by the pump when it detects the client's framing,
	// read by Write. Before detection, writes are newline-delimited.
	framing atomic.Int32

	startPump sync.Once
	results   chan readResult // unbuffered; closed when the pump ends
	readErr   error           // the pump's final error; read after results is closed
	pumpDone  chan struct{}   // closed when the pump goroutine returns

	closeOnce sync.Once
	closing   chan struct{} // closed by Close
	closeErr  error

	wmu sync.Mutex
	bw  *bufio.Writer // guarded by wmu; flushed before wmu is released
}

type readResult struct {
	msg []byte
	err error
}

// NewStdio returns a Stream reading messages from r and writing them to w.
// The framing is picked from the first non-blank bytes read: a
// "Content-Length:" header (any case) selects LSP-style Content-Length
// framing, anything else newline-delimited JSON; writes use the same framing
// from then on (newline-delimited until the first message has been read).
//
// Reading happens in a goroutine owned by the stream, started by the first
// Read, so that Read can honour ctx and Close even when r cannot be
// interrupted (a blocking read of the process's stdin). That goroutine ends
// when r returns an error or EOF; Close closes r (and w) when they implement
// io.Closer, which ends it for pipes and sockets. Close does not wait for it,
// since a read of a terminal or inherited pipe may never return.
//
// Each Write is flushed before it returns. A Conn hands the stream all the
// messages queued while it wrote the previous ones and flushes them
// together, so a burst leaves in few system calls while a lone message is
// sent at once.
func NewStdio(r io.Reader, w io.Writer, opts StdioOptions) Stream {
	return newStdio(r, w, opts, framingUnknown)
}

// NewLines returns a Stream of newline-delimited JSON over a child
// process's stdout (r) and stdin (w): the framing is not detected, and
// Read reads on the caller's goroutine, with no goroutine of the stream's
// own, returning a line that fits the read buffer as a slice of it (valid
// until the next Read) rather than a copy. A child streaming a turn
// writes thousands of lines a second; a goroutine hand-off and a copy per
// line were a measurable share of forwarding each.
//
// So a Read blocked in r honours neither ctx nor Close unless closing r
// ends it: the owner ends it by ending the child, whose output then ends.
// Close closes r and w when they implement io.Closer.
func NewLines(r io.Reader, w io.Writer, opts StdioOptions) Stream {
	s := newStdio(r, w, opts, framingNDJSON)
	s.inline, s.in.alias = true, true
	return s
}

func newStdio(r io.Reader, w io.Writer, opts StdioOptions, f framing) *stdio {
	limit := opts.MaxMessageSize
	if limit <= 0 {
		limit = DefaultMaxMessageSize
	}
	s := &stdio{
		r:        r,
		w:        w,
		trace:    opts.Trace,
		in:       reader{br: bufio.NewReaderSize(r, readBufferSize), limit: limit, framing: f},
		results:  make(chan readResult),
		pumpDone: make(chan struct{}),
		closing:  make(chan struct{}),
		bw:       bufio.NewWriterSize(w, writeBufferSize),
	}
	s.framing.Store(int32(f))
	return s
}

// Read returns the next message.
func (s *stdio) Read(ctx context.Context) ([]byte, error) {
	if s.inline {
		return s.readInline(ctx)
	}
	s.startPump.Do(func() { go s.pump() })
	select {
	case res, ok := <-s.results:
		if !ok {
			return nil, s.readErr
		}
		if res.err == nil && s.trace != nil {
			s.trace(true, res.msg)
		}
		return res.msg, res.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-s.closing:
		return nil, errStreamClosed
	}
}

// readInline is Read for NewLines. After a fatal error (the end of r), it
// keeps returning it.
// A Conn closes its context before the stream, so that is the check made
// before each read; Close shows in the error of the read that it ends.
func (s *stdio) readInline(ctx context.Context) ([]byte, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if s.readErr != nil {
		return nil, s.readErr
	}
	msg, err := s.in.next()
	if err != nil {
		return nil, s.readFailed(err)
	}
	if s.trace != nil {
		s.trace(true, msg)
	}
	return msg, nil
}

// readFailed keeps a fatal read error for the Reads after it and returns
// err. It is apart from readInline because the target of errors.As
// escapes: declared there, it would cost an allocation per message.
func (s *stdio) readFailed(err error) error {
	var tooLarge *TooLargeError
	if errors.As(err, &tooLarge) || errors.Is(err, ErrParse) {
		return err
	}
	select {
	case <-s.closing:
		err = errStreamClosed
	default:
	}
	s.readErr = err
	return err
}

// pump reads messages ahead, one at a time, until a fatal error or Close.
func (s *stdio) pump() {
	defer close(s.pumpDone)
	defer close(s.results)
	for {
		msg, err := s.in.next()
		if f := s.in.framing; f != framingUnknown {
			s.framing.Store(int32(f))
		}
		var tooLarge *TooLargeError
		if err != nil && !errors.As(err, &tooLarge) && !errors.Is(err, ErrParse) {
			s.readErr = err
			return
		}
		select {
		case s.results <- readResult{msg, err}:
		case <-s.closing:
			s.readErr = errStreamClosed
			return
		}
	}
}

// Write writes one message with the stream's framing.
func (s *stdio) Write(ctx context.Context, msg []byte) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return s.writeBatch([][]byte{msg})
}

// writeBatch writes msgs in order with the stream's framing and flushes
// once. On error, the messages before the failing one may have been written.
func (s *stdio) writeBatch(msgs [][]byte) error {
	select {
	case <-s.closing:
		return errStreamClosed
	default:
	}
	cl := framing(s.framing.Load()) == framingContentLength
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var err error
	for _, msg := range msgs {
		if err = s.frame(msg, cl); err != nil {
			break
		}
	}
	if ferr := s.bw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("writing message: %w", err)
	}
	return nil
}

// frame writes one message with its framing into the buffer. s.wmu is held.
func (s *stdio) frame(msg []byte, cl bool) error {
	if !cl && bytes.IndexByte(msg, '\n') >= 0 {
		return errors.New("newline-delimited message contains a newline")
	}
	if s.trace != nil {
		s.trace(false, msg)
	}
	if cl {
		h := s.bw.AvailableBuffer()
		h = append(h, "Content-Length: "...)
		h = strconv.AppendInt(h, int64(len(msg)), 10)
		h = append(h, "\r\n\r\n"...)
		if _, err := s.bw.Write(h); err != nil {
			return err
		}
	}
	if _, err := s.bw.Write(msg); err != nil {
		return err
	}
	if !cl {
		return s.bw.WriteByte('\n')
	}
	return nil
}

// Close unblocks Read and closes the underlying reader and writer when they
// implement io.Closer.
func (s *stdio) Close() error {
	s.closeOnce.Do(func() {
		close(s.closing)
		var errs []error
		if c, ok := s.r.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
		if c, ok := s.w.(io.Closer); ok && !sameCloser(s.r, s.w) {
			errs = append(errs, c.Close())
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// sameCloser reports whether r and w are the same closable object (a socket
// used both ways), which must be closed only once.
func sameCloser(r io.Reader, w io.Writer) (same bool) {
	defer func() { _ = recover() }() // incomparable dynamic types
	rc, ok := r.(io.Closer)
	return ok && any(rc) == any(w)
}
