package streamplayer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// What the player writes to the bridge: recorded lines with the live session
// id, control answers, and the small JSON helpers they need.

// writeLine writes a recorded line with the session id and the uuids of
// the host's user messages replaced.
func (p *player) writeLine(line []byte) error {
	line = p.replaceUUIDs(line)
	if len(p.sidOld) > 0 {
		for {
			i := bytes.Index(line, p.sidOld)
			if i < 0 {
				break
			}
			p.w.Write(line[:i])
			p.w.Write(p.sidNew)
			line = line[i+len(p.sidOld):]
		}
	}
	p.w.Write(line)
	if err := p.w.WriteByte('\n'); err != nil {
		return p.writeErr(err)
	}
	return nil
}

// writeRaw writes a synthesized line; errors surface at the next flush.
func (p *player) writeRaw(line []byte) {
	p.scratch = line[:0] // keep the grown buffer
	p.w.Write(line)
	p.w.WriteByte('\n')
}

func (p *player) flush() error {
	if err := p.w.Flush(); err != nil {
		return p.writeErr(err)
	}
	return nil
}

func (p *player) writeErr(err error) error {
	if p.ctx.Err() != nil {
		return p.ctx.Err()
	}
	return fmt.Errorf("writing stdout: %w", err)
}

func (p *player) replaceSID(b []byte) []byte {
	if len(p.sidOld) == 0 {
		return b
	}
	return bytes.ReplaceAll(b, p.sidOld, p.sidNew)
}

func (p *player) logf(format string, args ...any) {
	if p.opts.Logger != nil {
		fmt.Fprintf(p.opts.Logger, "fakeagent: "+format+"\n", args...)
	}
}

// idOrNull returns a raw JSON id, or null when it is missing.
func idOrNull(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "null"
	}
	return string(raw)
}

func remove(ids []string, id string) []string {
	if i := slices.Index(ids, id); i >= 0 {
		return slices.Delete(ids, i, i+1)
	}
	return ids
}

// jsonString returns s as a JSON string, without HTML escaping (the
// recording was not escaped either).
func jsonString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func unquote(b []byte) []byte { return b[1 : len(b)-1] }

// mapAnswer rewrites response.request_id of a recorded control_response to
// the live id of the request it answers.
func (p *player) mapAnswer(line []byte) []byte {
	var m msg
	if json.Unmarshal(line, &m) != nil {
		return line
	}
	rec := string(m.Response.RequestID)
	live, ok := p.ids[rec]
	if !ok {
		return line
	}
	p.unanswered = remove(p.unanswered, live)
	if live == rec {
		return line
	}
	var buf bytes.Buffer
	if json.Compact(&buf, line) != nil {
		return line
	}
	return bytes.ReplaceAll(buf.Bytes(), []byte(`"request_id":`+rec), []byte(`"request_id":`+live))
}
