//go:build !windows

package proc

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// quietPipe is the read end of the agent's stdout pipe. Read waits through
// the runtime's poller like an *os.File. ReadNow takes the pipe off the
// poller first: the poller is edge-triggered, and a pipe wakes it at every
// write, so while a reader sleeps between batches of a dense stream (a CLI
// writing tens of lines a millisecond), each of the agent's writes would
// wake the process for nothing. In a 20,000-delta Claude turn that was
// ~9,000 wake-ups and half of the bridge's CPU.
//
// The pipe itself (fd) is never watched; the poller watches a duplicate of
// it, made when Read needs one and closed by ReadNow. Read and ReadNow are
// for one goroutine; Close may come from another and ends a pending Read.
type quietPipe struct {
	mu      sync.Mutex
	fd      int      // non-blocking; -1 once closed
	watched *os.File // the duplicate of fd that the poller watches; nil while quiet
	// unwatchable is set when the poller refused the pipe (its limit on
	// watched files reached, say): Read then polls with ReadNow.
	unwatchable bool
}

// watchable reports whether the poller took f; a variable for tests.
var watchable = func(f *os.File) bool {
	return !errors.Is(f.SetReadDeadline(time.Time{}), os.ErrNoDeadline)
}

// stdoutPipe makes the agent's stdout pipe: the read end for the bridge and
// the write end for the child.
func stdoutPipe() (io.ReadCloser, *os.File, error) {
	var p [2]int
	// ForkLock keeps a concurrent fork from inheriting the fds before they
	// are close-on-exec (what os.Pipe does where there is no pipe2).
	syscall.ForkLock.RLock()
	err := syscall.Pipe(p[:])
	if err == nil {
		syscall.CloseOnExec(p[0])
		syscall.CloseOnExec(p[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, os.NewSyscallError("pipe", err)
	}
	if err := syscall.SetNonblock(p[0], true); err != nil {
		syscall.Close(p[0])
		syscall.Close(p[1])
		return nil, nil, os.NewSyscallError("setnonblock", err)
	}
	return &quietPipe{fd: p[0]}, os.NewFile(uintptr(p[1]), "|1"), nil
}

// Read waits for output through the poller and reads it.
func (q *quietPipe) Read(b []byte) (int, error) {
	f, err := q.watch()
	if err != nil || f == nil {
		return q.poll(b, err)
	}
	return f.Read(b)
}

// poll is Read on a pipe the poller would not take: ReadNow until there
// is output, sleeping between tries, up to 10 ms at a time.
func (q *quietPipe) poll(b []byte, err error) (int, error) {
	if err != nil || len(b) == 0 {
		return 0, err
	}
	for wait := 100 * time.Microsecond; ; wait = min(2*wait, 10*time.Millisecond) {
		if n, err := q.ReadNow(b); n > 0 || err != nil {
			return n, err
		}
		time.Sleep(wait)
	}
}

// watch returns the watched duplicate of the pipe, making it if need be;
// nil if the poller would not take it.
func (q *quietPipe) watch() (*os.File, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fd < 0 {
		return nil, os.ErrClosed
	}
	if q.watched == nil && !q.unwatchable {
		syscall.ForkLock.RLock()
		fd, err := syscall.Dup(q.fd)
		if err == nil {
			syscall.CloseOnExec(fd)
		}
		syscall.ForkLock.RUnlock()
		if err != nil {
			return nil, os.NewSyscallError("dup", err)
		}
		// The duplicate shares the pipe's non-blocking mode, so NewFile
		// hands it to the poller.
		f := os.NewFile(uintptr(fd), "agent stdout")
		if !watchable(f) {
			// Non-blocking yet unwatched, its reads would fail with
			// EAGAIN.
			f.Close()
			q.unwatchable = true
			return nil, nil
		}
		q.watched = f
	}
	return q.watched, nil
}

// ReadNow reads what the pipe holds without waiting: 0 and nil when it is
// empty. Until the next Read, the poller no longer watches the pipe.
func (q *quietPipe) ReadNow(b []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fd < 0 {
		return 0, os.ErrClosed
	}
	if q.watched != nil {
		q.watched.Close() // also takes it off the poller
		q.watched = nil
	}
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(q.fd, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return 0, nil
		case err != nil:
			return 0, &os.PathError{Op: "read", Path: "agent stdout", Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Close closes the pipe, ending a pending Read with os.ErrClosed.
func (q *quietPipe) Close() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fd < 0 {
		return os.ErrClosed
	}
	if q.watched != nil {
		q.watched.Close()
		q.watched = nil
	}
	err := syscall.Close(q.fd)
	q.fd = -1
	if err != nil {
		return os.NewSyscallError("close", err)
	}
	return nil
}
