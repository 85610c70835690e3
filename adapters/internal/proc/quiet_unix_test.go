//go:build !windows

package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// newQuietPipe returns both ends of a new stdout pipe, closed at the end
// of the test.
func newQuietPipe(t *testing.T) (*quietPipe, *os.File) {
	t.Helper()
	r, w, err := stdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.Close()
		r.Close()
	})
	return r.(*quietPipe), w
}

func TestQuietPipe(t *testing.T) {
	q, w := newQuietPipe(t)
	buf := make([]byte, 64)

	if n, err := q.ReadNow(buf); n != 0 || err != nil {
		t.Fatalf("ReadNow of an empty pipe = %d, %v; want 0, nil", n, err)
	}
	w.WriteString("one\n")
	if n, err := q.ReadNow(buf); string(buf[:n]) != "one\n" || err != nil {
		t.Fatalf("ReadNow = %q, %v", buf[:n], err)
	}
	// Read after ReadNow waits for the next write, through the poller.
	go func() {
		time.Sleep(20 * time.Millisecond)
		w.WriteString("two\n")
	}()
	if n, err := q.Read(buf); string(buf[:n]) != "two\n" || err != nil {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	w.WriteString("three\n")
	w.Close()
	if n, err := q.ReadNow(buf); string(buf[:n]) != "three\n" || err != nil {
		t.Fatalf("ReadNow = %q, %v", buf[:n], err)
	}
	if n, err := q.ReadNow(buf); n != 0 || err != io.EOF {
		t.Errorf("ReadNow after the writer closed = %d, %v; want io.EOF", n, err)
	}
	if n, err := q.Read(buf); n != 0 || err != io.EOF {
		t.Errorf("Read after the writer closed = %d, %v; want io.EOF", n, err)
	}
}

// Close ends a Read that waits, as the reaper needs when a process outside
// the group still holds the write end.
func TestQuietPipeCloseEndsRead(t *testing.T) {
	q, _ := newQuietPipe(t)
	done := make(chan error, 1)
	go func() {
		_, err := q.Read(make([]byte, 8))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // let Read wait
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("Read after Close = %v, want os.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the pending Read")
	}
	if _, err := q.ReadNow(make([]byte, 8)); !errors.Is(err, os.ErrClosed) {
		t.Errorf("ReadNow after Close = %v, want os.ErrClosed", err)
	}
	if err := q.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("second Close = %v, want os.ErrClosed", err)
	}
}

// The point of the quiet pipe: the runtime's poller watches it only from a
// Read until the next ReadNow.
func TestQuietPipeLeavesThePoller(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the poller's registrations from /proc")
	}
	q, w := newQuietPipe(t)
	var st syscall.Stat_t
	if err := syscall.Fstat(q.fd, &st); err != nil {
		t.Fatal(err)
	}
	watched := func() bool {
		t.Helper()
		inodes, err := epollInodes()
		if err != nil {
			t.Fatal(err)
		}
		return inodes[st.Ino]
	}
	if watched() {
		t.Fatal("a new pipe is watched before any Read")
	}
	w.WriteString("x\n")
	if _, err := q.Read(make([]byte, 8)); err != nil {
		t.Fatal(err)
	}
	if !watched() {
		t.Fatal("after Read the poller does not watch the pipe: the check below proves nothing")
	}
	if _, err := q.ReadNow(nil); err != nil {
		t.Fatal(err)
	}
	if watched() {
		t.Error("after ReadNow the poller still watches the pipe")
	}
}

// epollInodes returns the inodes of the files that this process's epoll
// instances watch (from /proc/self/fdinfo).
func epollInodes() (map[uint64]bool, error) {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, err
	}
	inodes := map[uint64]bool{}
	for _, fd := range fds {
		if link, _ := os.Readlink("/proc/self/fd/" + fd.Name()); link != "anon_inode:[eventpoll]" {
			continue
		}
		info, err := os.ReadFile("/proc/self/fdinfo/" + fd.Name())
		if err != nil {
			return nil, err
		}
		// "tfd:        7 events:       19 data: ... pos:0 ino:1a2b sdev:d"
		for line := range strings.Lines(string(info)) {
			if !strings.HasPrefix(line, "tfd:") {
				continue
			}
			_, ino, ok := strings.Cut(line, " ino:")
			if !ok {
				return nil, fmt.Errorf("epoll fdinfo line without an inode: %q", line)
			}
			ino, _, _ = strings.Cut(ino, " ")
			n, err := strconv.ParseUint(strings.TrimSpace(ino), 16, 64)
			if err != nil {
				return nil, fmt.Errorf("epoll fdinfo line %q: %w", line, err)
			}
			inodes[n] = true
		}
	}
	return inodes, nil
}

// Quiet or not, the output of a process started on pipes reads to the end.
func TestStdoutReadNow(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	p, err := Start(t.Context(), Spec{Path: "/bin/sh", Args: []string{"-c", "for i in 1 2 3; do echo line $i; sleep 0.01; done"}})
	if err != nil {
		t.Fatal(err)
	}
	now, ok := p.Stdout().(NowReader)
	if !ok {
		t.Fatalf("Stdout of a process on pipes is a %T, not a NowReader", p.Stdout())
	}
	var got bytes.Buffer
	buf := make([]byte, 4)
	for i := 0; ; i++ {
		var n int
		var err error
		if i%2 == 0 {
			n, err = now.ReadNow(buf)
		} else {
			n, err = p.Stdout().Read(buf)
		}
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if want := "line 1\nline 2\nline 3\n"; got.String() != want {
		t.Errorf("read %q, want %q", got.String(), want)
	}
	if err := p.Wait(); err != nil {
		t.Error(err)
	}
}

// A pipe the poller will not take is still read, by polling: a Read waits
// for output, and Close ends it.
func TestQuietPipeUnwatchable(t *testing.T) {
	saved := watchable
	watchable = func(*os.File) bool { return false }
	t.Cleanup(func() { watchable = saved })
	q, w := newQuietPipe(t)
	go func() {
		time.Sleep(30 * time.Millisecond)
		w.WriteString("late\n")
	}()
	buf := make([]byte, 16)
	if n, err := q.Read(buf); string(buf[:n]) != "late\n" || err != nil {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	if q.watched != nil || !q.unwatchable {
		t.Fatal("the pipe was watched after all: this test proves nothing")
	}
	done := make(chan error, 1)
	go func() {
		_, err := q.Read(buf)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	q.Close()
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("Read after Close = %v, want os.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the Read")
	}
}
