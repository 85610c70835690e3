package version

import "testing"

func TestVersions(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		name, got, want string
	}{
		{"dev", Dev(rev, false), "v0.0.0-dev+0123456789ab"},
		{"dev dirty", Dev(rev, true), "v0.0.0-dev+0123456789ab.dirty"},
		{"dev, commit unknown", Dev("", false), "v0.0.0-dev"},
		{"dev, commit unknown, dirty", Dev("", true), "v0.0.0-dev+dirty"},
		{"tag", Tagged("v1.2.3", false), "v1.2.3"},
		{"tag dirty", Tagged("v1.2.3", true), "v1.2.3+dirty"},
		{"pre-release tag dirty", Tagged("v1.2.3-rc.1", true), "v1.2.3-rc.1+dirty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
			if !Valid(tt.got) {
				t.Errorf("%q is not a semantic version", tt.got)
			}
		})
	}
}

func TestIsRelease(t *testing.T) {
	for tag, want := range map[string]bool{
		"v1.2.3": true, "v0.1.0-rc.1": true, "v10.0.0": true,
		"1.2.3": false, "v1.2": false, "v01.2.3": false, "v1.2.3+meta": false, "latest": false,
	} {
		if got := IsRelease(tag); got != want {
			t.Errorf("IsRelease(%q) = %v, want %v", tag, got, want)
		}
	}
}
