package native

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// The agents that serve no session (Adapter.free), one per login at most:
// the one asked at initialize stays up so that the editor's first session
// takes it over instead of waiting for a second start, and requests that
// name no session (session/list, authenticate, extension methods) run on
// the one of their editor's login, started when the first arrives. Once a
// session has taken a process over, that process is the session's alone:
// stopping it touches nothing else, and the next request naming no session
// starts a control agent of its own.
//
// Under acpbridge serve every client login gets its own control agent, and
// they would pile up until the bridge exits: so at most
// Options.MaxIdleFree of them wait idle (the least recently used is
// stopped first; the one started at initialize is left for the first
// session, as long as it is not idle past the timeout), and one idle for
// Options.FreeIdleTimeout is stopped. One with a request under way
// (busy) is never stopped.

// putLocked files c as the free agent of its login. A running one already
// there is kept (requests may be under way on it) and c is stopped in the
// background; a dead one is replaced. The caller holds initMu.
func (a *Adapter) putLocked(c *agentConn) {
	if a.closed {
		a.stopLater(c)
		return
	}
	if old := a.free[c.login]; old != nil && old != c {
		if old.err() == nil {
			a.stopLater(c)
			return
		}
		delete(a.free, old.login)
		a.stopLater(old)
	}
	c.idle = time.Now()
	a.free[c.login] = c
	a.trimLocked()
}

// trimLocked stops the free agents idle past FreeIdleTimeout, then the
// least recently used idle ones past MaxIdleFree, and sets the sweep for
// the next to reach the timeout. The caller holds initMu.
func (a *Adapter) trimLocked() {
	now := time.Now()
	var idle []*agentConn
	for k, c := range a.free {
		switch {
		case c.err() != nil:
			delete(a.free, k)
			a.stopLater(c) // reaps it
		case c.busy > 0:
		case a.opts.FreeIdleTimeout > 0 && now.Sub(c.idle) >= a.opts.FreeIdleTimeout:
			a.opts.Logger.Debug().Str("adapter", a.opts.Name).Int("pid", c.p.Pid()).Msg("stopping an agent idle past the timeout, serving no session")
			delete(a.free, k)
			a.stopLater(c)
		default:
			idle = append(idle, c)
		}
	}
	slices.SortFunc(idle, func(x, y *agentConn) int { return x.idle.Compare(y.idle) })
	for n := len(idle); n > a.opts.MaxIdleFree; n-- {
		i := slices.IndexFunc(idle, func(c *agentConn) bool { return !c.kept })
		if i < 0 {
			break
		}
		c := idle[i]
		idle = slices.Delete(idle, i, i+1)
		a.opts.Logger.Debug().Str("adapter", a.opts.Name).Int("pid", c.p.Pid()).Msg("stopping the least recently used agent serving no session")
		delete(a.free, c.login)
		a.stopLater(c)
	}
	if a.sweep != nil && a.sweep.Stop() {
		a.stops.Done() // it will not run
	}
	a.sweep = nil
	if a.opts.FreeIdleTimeout > 0 && len(idle) > 0 {
		// idle is sorted: the first reaches the timeout first.
		a.stops.Add(1)
		a.sweep = time.AfterFunc(idle[0].idle.Add(a.opts.FreeIdleTimeout).Sub(now), a.sweepNow)
	}
}

// sweepNow is the sweep timer's: it runs trimLocked.
func (a *Adapter) sweepNow() {
	defer a.stops.Done()
	a.initMu.Lock()
	defer a.initMu.Unlock()
	if !a.closed {
		a.trimLocked()
	}
}

// stopLater stops c off the caller's path; Close waits for it.
func (a *Adapter) stopLater(c *agentConn) {
	a.stops.Add(1)
	go func() {
		defer a.stops.Done()
		c.stop(context.Background())
	}()
}

// control returns a running free agent logged in as rc's editor, counted
// busy until release, starting one if none runs.
func (a *Adapter) control(ctx context.Context, rc acp.RawClient) (*agentConn, error) {
	login := a.loginOf(rc)
	a.initMu.Lock()
	if c := a.free[string(login)]; c != nil && c.err() == nil {
		c.busy++
		a.initMu.Unlock()
		return c, nil
	}
	a.initMu.Unlock()
	c, _, err := a.dialAs(ctx, "", initParamsOf(rc), nil, login)
	if err != nil {
		return nil, err
	}
	a.initMu.Lock()
	defer a.initMu.Unlock()
	if old := a.free[c.login]; old != nil && old.err() == nil {
		// Another request started one meanwhile: use that, drop this.
		a.stopLater(c)
		old.busy++
		return old, nil
	}
	c.busy++
	a.putLocked(c)
	return c, nil
}

func (a *Adapter) release(c *agentConn) {
	a.initMu.Lock()
	defer a.initMu.Unlock()
	c.busy--
	if c.busy == 0 {
		c.idle = time.Now()
		if a.free[c.login] == c {
			a.trimLocked()
		}
	}
}

// relogin runs authenticate or logout on a free agent no other request is
// using (or a new one), which is then filed under the login it holds: a
// session/list of another editor running meanwhile never runs logged in as
// this one.
func (a *Adapter) relogin(ctx context.Context, method string, params json.RawMessage, rc acp.RawClient) (json.RawMessage, error) {
	login := string(a.loginOf(rc))
	a.initMu.Lock()
	c := a.free[login]
	if c != nil && (c.err() != nil || c.busy > 0) {
		c = nil
	}
	if c != nil {
		delete(a.free, login)
	}
	a.initMu.Unlock()
	if c == nil {
		var err error
		if c, _, err = a.dialAs(ctx, "", initParamsOf(rc), nil, json.RawMessage(login)); err != nil {
			return nil, err
		}
	}
	res, err := c.call(ctx, method, params)
	a.initMu.Lock()
	defer a.initMu.Unlock()
	if err == nil {
		c.login, a.auth = "", nil
		if method == acp.MethodAuthenticate {
			c.login, a.auth = string(params), append(json.RawMessage(nil), params...)
		}
	}
	if c.err() != nil {
		a.stopLater(c)
	} else {
		a.putLocked(c)
	}
	return res, err
}

// spare takes over a free agent for a session opening in dir for rc's
// editor, so the session needs no agent start of its own. It must be idle,
// running in dir (an agent reads its project's settings from its working
// directory at start), initialized with the editor's params, and logged in
// as the editor, or not at all (it is then logged in here, as dial would).
// nil means none fits.
func (a *Adapter) spare(ctx context.Context, dir string, rc acp.RawClient) *agentConn {
	if dir == "" || a.dir == "" || filepath.Clean(dir) != filepath.Clean(a.dir) {
		return nil
	}
	login, init := a.loginOf(rc), initParamsOf(rc)
	a.initMu.Lock()
	var c *agentConn
	for _, k := range []string{string(login), ""} {
		if f := a.free[k]; f != nil && f.err() == nil && f.busy == 0 && bytes.Equal(f.initParams, init) {
			c = f
			delete(a.free, k)
			break
		}
	}
	a.initMu.Unlock()
	if c == nil {
		return nil
	}
	if c.login != string(login) {
		if _, err := c.call(ctx, acp.MethodAuthenticate, login); err != nil {
			a.opts.Logger.Debug().Err(err).Msg("logging in a spare agent; starting one instead")
			a.stopLater(c)
			return nil
		}
		c.login = string(login)
	}
	c.rc.Store(&clientBox{rc})
	return c
}

// unspare gives back a process taken by spare whose opening request the
// agent refused (say, auth required before authenticate): it still serves
// no session.
func (a *Adapter) unspare(c *agentConn) {
	c.rc.Store(nil)
	a.initMu.Lock()
	defer a.initMu.Unlock()
	if c.err() != nil {
		a.stopLater(c)
		return
	}
	a.putLocked(c)
}

// initParamsOf is the editor's initialize params, as dial sends them.
func initParamsOf(rc acp.RawClient) json.RawMessage {
	var p json.RawMessage
	if rc != nil {
		p = rc.InitializeParams()
	}
	if len(p) == 0 {
		p = json.RawMessage(`{"protocolVersion":1,"clientCapabilities":{}}`)
	}
	return p
}
