package native

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
)

// Version runs `path --version` in its own process group and returns the
// first line it prints. The group is stopped when ctx ends, so a CLI that
// hangs instead of answering costs no more than ctx allows.
func Version(ctx context.Context, path string) (string, error) {
	p, err := proc.Start(ctx, proc.Spec{Path: path, Args: []string{"--version"}, Grace: 200 * time.Millisecond})
	if err != nil {
		return "", err
	}
	p.Stdin().Close()
	out := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(p.Stdout(), 64<<10))
		out <- b
	}()
	var b []byte
	select {
	case b = <-out:
	case <-ctx.Done():
		p.Stop(ctx)
		<-out
		return "", fmt.Errorf("%s --version: %w", path, context.Cause(ctx))
	}
	if err := p.Wait(); err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(line), nil
}
