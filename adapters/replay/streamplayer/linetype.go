package streamplayer

import "github.com/acpbridge/acpbridge/internal/jsonscan"

// topType returns the top-level "type" member of the JSON object line as raw
// string bytes (escapes not decoded), or nil. It skims only as far as that
// member, which the CLI writes first, so classifying a '>' line costs next to
// nothing; the caller knows line is valid JSON.
func topType(line []byte) []byte {
	s := jsonscan.Lax{B: line}
	if !s.Member("type") {
		return nil
	}
	return s.StringValue()
}
