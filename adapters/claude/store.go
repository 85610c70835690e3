package claude

import (
	"os"
	"strings"

	"github.com/acpbridge/acpbridge/adapters/claude/transcripts"
)

// newStore locates the session storage (transcripts.Store) of a CLI
// started with os.Environ() plus env (later entries win, as for the CLI's
// own process). Its transcripts are read with the check the CLI's stdout
// lines get (validJSON).
func newStore(env []string) transcripts.Store {
	return transcripts.New(func(key string) string { return lookupEnv(env, key) }, validJSON)
}

// lookupEnv is key's value in os.Environ() followed by env.
func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return os.Getenv(key)
}
