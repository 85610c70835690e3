package claude

import (
	"context"
	"encoding/json"

	"github.com/rs/zerolog"
	"github.com/tidwall/gjson"
)

// lists completes the initialize answer of a CLI that lists its models or
// slash commands through control requests of their own (Dialect.Models,
// Dialect.Commands) rather than in that answer, as Claude Code does: it
// asks, and adds what it is told to the answer in Claude Code's shape. A
// request that fails leaves the list out; the session goes on without it.
func (d *Dialect) lists(ctx context.Context, c *conn, init []byte, log zerolog.Logger) []byte {
	if d.Models != "get_available_models" && d.Commands != "supported_commands" {
		return init
	}
	var obj map[string]any
	if json.Unmarshal(init, &obj) != nil || obj == nil {
		obj = map[string]any{}
	}
	if d.Models == "get_available_models" {
		if body, err := c.request(ctx, "get_available_models", nil); err != nil {
			log.Debug().Err(err).Msg("asking the CLI for its models")
		} else {
			obj["models"] = modelsOf(gjson.GetBytes(body, "models"))
		}
	}
	if d.Commands == "supported_commands" {
		if body, err := c.request(ctx, "supported_commands", nil); err != nil {
			log.Debug().Err(err).Msg("asking the CLI for its commands")
		} else {
			obj["commands"] = commandsOf(gjson.GetBytes(body, "commands"))
		}
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return init
	}
	return out
}

// modelsOf turns a get_available_models list (id, label) into initialize's
// (value, displayName).
func modelsOf(list gjson.Result) []map[string]string {
	out := []map[string]string{}
	for _, m := range list.Array() {
		id := m.Get("id").String()
		if id == "" {
			continue
		}
		out = append(out, map[string]string{"value": id, "displayName": orDefault(m.Get("label").String(), id),
			"description": m.Get("description").String()})
	}
	return out
}

// commandsOf turns a supported_commands list (names, or objects with a
// name) into initialize's.
func commandsOf(list gjson.Result) []map[string]string {
	out := []map[string]string{}
	for _, c := range list.Array() {
		name := c.String()
		if c.IsObject() {
			name = c.Get("name").String()
		}
		if name == "" {
			continue
		}
		out = append(out, map[string]string{"name": name, "description": c.Get("description").String()})
	}
	return out
}
