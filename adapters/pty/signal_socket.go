package pty

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// maxSocketPath is the longest socket path that binds everywhere.
const maxSocketPath = 100

// maxReport bounds one report: Codex puts every prompt of the thread in it.
const maxReport = 4 << 20

// reportWait bounds how long one reporter may take to send its report.
const reportWait = 5 * time.Second

// signals is a session's socket: a unix socket in a private temporary
// directory, which Close removes. Reports arrive on reports.
type signals struct {
	dir     string
	sock    string
	ln      net.Listener
	log     zerolog.Logger
	now     func() time.Time
	reports chan report // buffered; a full buffer drops the report
	wg      sync.WaitGroup
	once    sync.Once
}

// listen opens the socket. The directory is private (0700), so only this
// user's processes can report.
func listen(log zerolog.Logger, now func() time.Time) (*signals, error) {
	// A unix socket's path has a short limit (108 bytes on Linux, 104 on
	// macOS): a long $TMPDIR falls back to /tmp.
	parent := os.TempDir()
	if len(parent)+len("/acpbridge-pty-0123456789/s") > maxSocketPath {
		parent = "/tmp"
	}
	dir, err := os.MkdirTemp(parent, "acpbridge-pty-")
	if err != nil {
		return nil, fmt.Errorf("making the signal socket's directory: %w", err)
	}
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("listening on the signal socket: %w", err)
	}
	g := &signals{dir: dir, sock: sock, ln: ln, log: log, now: now, reports: make(chan report, 64)}
	g.wg.Add(1)
	go g.accept()
	return g, nil
}

func (g *signals) accept() {
	defer g.wg.Done()
	for {
		c, err := g.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				g.log.Debug().Err(err).Msg("accepting on the signal socket")
			}
			return
		}
		g.wg.Add(1)
		go g.read(c)
	}
}

// read takes one report from c.
func (g *signals) read(c net.Conn) {
	defer g.wg.Done()
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(reportWait))
	b, err := io.ReadAll(io.LimitReader(c, maxReport))
	if err != nil {
		g.log.Debug().Err(err).Msg("reading a report")
		return
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		g.log.Debug().Err(err).Msg("a report that is not JSON")
		return
	}
	r.at = g.now()
	g.log.Debug().Strs("args", r.Args).Int("stdin", len(r.Stdin)).Msg("report")
	select {
	case g.reports <- r:
	default:
		g.log.Warn().Msg("dropping a report: none was read for a while")
	}
}

// drain forgets the reports that arrived so far: they are about turns that
// have ended.
func (g *signals) drain() {
	for {
		select {
		case <-g.reports:
		default:
			return
		}
	}
}

// close stops listening, waits for the readers and removes the socket's
// directory.
func (g *signals) close() {
	g.once.Do(func() {
		g.ln.Close()
		g.wg.Wait()
		os.RemoveAll(g.dir)
	})
}

// Notify is the reporter: it sends args and, unless it is a terminal or
// absent, what stdin holds, to the socket at sock, as an agent's hook or
// notify command runs it. It reads stdin for at most a few seconds: a hook
// runner that leaves it open must not hang the agent.
func Notify(sock string, args []string, stdin *os.File) error {
	r := report{Args: args}
	if stdin != nil {
		if fi, err := stdin.Stat(); err == nil && fi.Mode()&(os.ModeCharDevice|os.ModeDevice) == 0 {
			r.Stdin = readBounded(stdin, reportWait)
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	c, err := net.DialTimeout("unix", sock, reportWait)
	if err != nil {
		return fmt.Errorf("reporting to the bridge: %w", err)
	}
	defer c.Close()
	_ = c.SetWriteDeadline(time.Now().Add(reportWait))
	if _, err := c.Write(b); err != nil {
		return fmt.Errorf("reporting to the bridge: %w", err)
	}
	return nil
}
