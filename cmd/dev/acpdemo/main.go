// Command acpdemo is a small scripted ACP client: it launches an agent
// command, opens a session, sends the prompts of a recorded fixture and
// prints the conversation the way a person reads it — agent text, thoughts,
// tool calls with kind and status, permissions asked and answered, the plan
// and the stop reason. It is what `make demo` runs against `acpbridge replay`.
//
//	acpdemo [-fixture FILE] [-answer allow|always|reject] [-prompt TEXT]... -- AGENT [ARGS...]
//
// It decodes frames with its own small types, not the bridge's, so it reads
// what is on the wire rather than what the bridge meant to write.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/acpbridge/acpbridge/internal/recording"
)

type promptList []string

func (p *promptList) String() string     { return strings.Join(*p, " | ") }
func (p *promptList) Set(s string) error { *p = append(*p, s); return nil }

func main() {
	var prompts promptList
	fixture := flag.String("fixture", "", "take the prompts from this fixture's recorded session")
	answer := flag.String("answer", "allow", "how to answer permission requests: allow, always or reject")
	plain := flag.Bool("plain", false, "no colours")
	flag.Var(&prompts, "prompt", "a prompt to send (repeatable); default: the fixture's prompts")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: acpdemo [-fixture FILE] [-answer allow|always|reject] [-prompt TEXT]... -- AGENT [ARGS...]")
		os.Exit(2)
	}
	if len(prompts) == 0 && *fixture != "" {
		p, err := fixturePrompts(*fixture)
		if err != nil {
			fmt.Fprintln(os.Stderr, "acpdemo:", err)
			os.Exit(1)
		}
		prompts = p
	}
	if len(prompts) == 0 {
		prompts = promptList{"Hello! What can you do?"}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out := newPrinter(os.Stdout, !*plain && isTerminal(os.Stdout))
	if err := run(ctx, flag.Args(), prompts, *answer, out); err != nil {
		fmt.Fprintln(os.Stderr, "acpdemo:", err)
		os.Exit(1)
	}
}

// run launches the agent and drives one session.
func run(ctx context.Context, argv, prompts []string, answer string, out *printer) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	cmd.WaitDelay = 3 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting agent: %w", err)
	}
	c := newClient(stdin, stdout, out, answer)
	go c.readLoop()
	err = c.session(ctx, prompts)
	close(c.stop)
	stdin.Close()
	<-c.done // stdout is read to EOF before Wait closes it
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("agent exited: %w", werr)
	}
	return err
}

func fixturePrompts(path string) ([]string, error) {
	fx, err := recording.Load(path)
	if err != nil {
		return nil, err
	}
	var ps []string
	for _, st := range fx.Script {
		if st.Dir == recording.ToAgent {
			if p := userText(st.Line); p != "" {
				ps = append(ps, p)
			}
		}
	}
	return ps, nil
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
