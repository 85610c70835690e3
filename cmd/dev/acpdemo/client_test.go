package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// scriptedAgent answers each request read from r with the next of answers,
// where "$ID" stands for the id of the line it answers (the prompt is id
// 3, answered after the permission answer), and writes all the frames of one
// answer in a single Write, as a bridge writing an answer and then a
// notification right away can.
func scriptedAgent(t *testing.T, r io.Reader, w io.WriteCloser, answers []string) {
	defer w.Close()
	br := bufio.NewReader(r)
	for _, a := range answers {
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Errorf("agent reading: %v", err)
			return
		}
		var m struct{ ID json.RawMessage }
		json.Unmarshal(line, &m)
		if _, err := io.WriteString(w, strings.ReplaceAll(a, "$ID", string(m.ID))); err != nil {
			t.Errorf("agent writing: %v", err)
			return
		}
	}
	io.Copy(io.Discard, br)
}

// TestOutputInWireOrder: the commands update the agent sends right after
// the session/new answer is printed after the session line, on every run;
// and a permission question is printed where it came, before the updates
// that follow it.
func TestOutputInWireOrder(t *testing.T) {
	for range 20 {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			scriptedAgent(t, inR, outW, []string{
				`{"jsonrpc":"2.0","id":$ID,"result":{"protocolVersion":1,"agentInfo":{"name":"a","version":"1"}}}` + "\n",
				`{"jsonrpc":"2.0","id":$ID,"result":{"sessionId":"s1"}}` + "\n" +
					`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"a","description":""},{"name":"b","description":""}]}}}` + "\n",
				`{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"ls","kind":"execute"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"}]}}` + "\n" +
					`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"done"}}}}` + "\n",
				`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}` + "\n",
			})
		}()
		var out bytes.Buffer
		c := newClient(inW, outR, newPrinter(&out, false), "allow")
		go c.readLoop()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		err := c.session(ctx, []string{"hi"})
		cancel()
		close(c.stop)
		inW.Close()
		<-c.done
		<-done
		if err != nil {
			t.Fatal(err)
		}
		want := "agent: a 1 (ACP protocol 1)\nsession: opened\n\nyou> hi\n  commands: 2 available\n" +
			"  permission? ls [execute] -> Allow\nagent> done\nturn ended: end_turn\n"
		if out.String() != want {
			t.Fatalf("printed:\n%s\nwant:\n%s", out.String(), want)
		}
	}
}
