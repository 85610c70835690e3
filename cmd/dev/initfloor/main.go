// Command initfloor is the least an ACP agent written in Go does to start:
// it reads one JSON-RPC request from stdin, answers it, and exits when
// stdin closes. BenchmarkInitialize (make bench) starts it beside acpbridge,
// so the bridge's start-up reads against what starting any Go program
// costs on the machine at hand, which varies far more between machines
// than the bridge's own work does.
package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	line, err := in.ReadBytes('\n')
	if err != nil {
		os.Exit(1)
	}
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		os.Exit(1)
	}
	answer, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      req.ID,
		"result":  map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}},
	})
	if err != nil {
		os.Exit(1)
	}
	os.Stdout.Write(append(answer, '\n'))
	io.Copy(io.Discard, in)
}
