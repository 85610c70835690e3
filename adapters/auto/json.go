package auto

import (
	"encoding/json"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// The functions below edit the frames of a session in flight: its id, and
// the agent option in its lists of config options. A frame that is not
// what they expect passes unchanged: it is the agent's to be wrong about.

// setSessionID sets the top-level sessionId of params, when it has one.
func setSessionID(params json.RawMessage, id acp.SessionID) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil || m == nil {
		return params
	}
	if _, ok := m["sessionId"]; !ok {
		return params
	}
	b, _ := json.Marshal(id)
	m["sessionId"] = b
	out, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return out
}

// configUpdate returns the configOptions of a session/update's
// config_option_update.
func configUpdate(params json.RawMessage) (json.RawMessage, bool) {
	var n struct {
		Update struct {
			Kind          string          `json:"sessionUpdate"`
			ConfigOptions json.RawMessage `json:"configOptions"`
		} `json:"update"`
	}
	if json.Unmarshal(params, &n) != nil || n.Update.Kind != "config_option_update" {
		return nil, false
	}
	return n.Update.ConfigOptions, true
}

// optionsOf returns the configOptions member of an answer (nil when it
// has none).
func optionsOf(answer json.RawMessage) json.RawMessage {
	var m struct {
		ConfigOptions json.RawMessage `json:"configOptions"`
	}
	if json.Unmarshal(answer, &m) != nil || string(m.ConfigOptions) == "null" {
		return nil
	}
	return m.ConfigOptions
}

// withAgentRaw puts opt first in the configOptions of the object at path
// in doc (doc itself for an empty path), creating the list when there is
// none, and drops an option of the agent's own with the same id (the
// editor's choice of that id is the agent's).
func withAgentRaw(doc json.RawMessage, path []string, opt acp.SessionConfigOption) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(doc, &m) != nil || m == nil {
		return doc
	}
	if len(path) > 0 {
		inner := withAgentRaw(m[path[0]], path[1:], opt)
		m[path[0]] = inner
	} else {
		m["configOptions"] = agentList(m["configOptions"], opt)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return doc
	}
	return out
}

// agentList is opts (a raw list, possibly absent) with opt first.
func agentList(opts json.RawMessage, opt acp.SessionConfigOption) json.RawMessage {
	var list []json.RawMessage
	_ = json.Unmarshal(opts, &list)
	first, err := json.Marshal(opt)
	if err != nil {
		return opts
	}
	out := []json.RawMessage{first}
	for _, o := range list {
		var id struct {
			ID acp.SessionConfigID `json:"id"`
		}
		if json.Unmarshal(o, &id) == nil && id.ID == OptionID {
			continue
		}
		out = append(out, o)
	}
	b, _ := json.Marshal(out)
	return b
}

// withAgent is agentList for typed options.
func withAgent(opt acp.SessionConfigOption, opts []acp.SessionConfigOption) []acp.SessionConfigOption {
	out := []acp.SessionConfigOption{opt}
	for _, o := range opts {
		if o.ID != OptionID {
			out = append(out, o)
		}
	}
	return out
}
