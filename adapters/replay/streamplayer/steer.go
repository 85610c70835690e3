package streamplayer

import "bytes"

// Steering: a user message the host writes into a running turn carries a
// uuid, and the CLI names it in what it writes about the message
// (command_lifecycle's command_uuid, a status's and a result's
// user_message_uuids), by which the host knows when the message has been
// answered. A live host picks its own uuid, so once a live user message
// matches a recorded one that had a uuid, the recorded uuid is replaced by
// the live one in every later '>' line.

// uuidPair is a recorded uuid and its live replacement, each as a JSON
// string (quoted, so that only whole values are replaced).
type uuidPair struct{ rec, live []byte }

// mapUUID notes that the recorded user message rec was sent live as live.
func (p *player) mapUUID(rec, live string) {
	if rec == "" || rec == live {
		return
	}
	if live == "" {
		p.logf("user message %s matched by one without a uuid: its answers keep the recorded uuid", rec)
		return
	}
	p.uuids = append(p.uuids, uuidPair{rec: jsonString(rec), live: jsonString(live)})
}

// replaceUUIDs rewrites the recorded uuids of the host's user messages in
// line to the live ones.
func (p *player) replaceUUIDs(line []byte) []byte {
	for _, u := range p.uuids {
		if bytes.Contains(line, u.rec) {
			line = bytes.ReplaceAll(line, u.rec, u.live)
		}
	}
	return line
}
