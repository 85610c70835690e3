package acptest_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// TestPinnedSchemaMatchesNPM keeps the pinned schemas honest: each must be
// byte for byte the file `make schema` takes from the npm package the
// Makefile pins. Without that file (no npm run here) the test skips, except
// under CI, which runs `make schema` first.
func TestPinnedSchemaMatchesNPM(t *testing.T) {
	for _, name := range []string{"schema.json", "schema.unstable.json"} {
		t.Run(name, func(t *testing.T) {
			// The package directory is bridge/acp/acptest.
			cached := filepath.Join("..", "..", "..", ".cache", "acp-schema", "v1", name)
			want, err := os.ReadFile(cached)
			if os.IsNotExist(err) {
				msg := cached + " not found: run `make schema` (fetches the ACP SDK with npm)"
				if os.Getenv("CI") == "true" {
					t.Fatal(msg)
				}
				t.Skip(msg)
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("testdata/%s differs from %s: copy the npm package's schema/v1/%s over it", name, cached, name)
			}
		})
	}
	if os.Getenv(acptest.SchemaEnv) == "" {
		pinned, err := acptest.Schema()
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("testdata", "schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(pinned, got) {
			t.Error("acptest.Schema() is not testdata/schema.json")
		}
	}
}
