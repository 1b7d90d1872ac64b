package config

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to Load as a TOML and as a YAML file, with
// one arbitrary environment entry. Load must not panic, and whatever it
// accepts must survive Write and load back unchanged.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("[server]\nport = 9000\ncors_origins = [\"http://localhost:30000\"]\n"), "HEARTH__LOG__LEVEL=debug")
	f.Add([]byte("[models.narrator]\nprovider = \"ollama\"\napi_key = \"s\"\n"), "HEARTH__MODELS__VISION__API_KEY=x")
	f.Add([]byte("server:\n  port: 1\n  host: ::1\n"), "HEARTH__SERVER__CORS_ORIGINS=*,http://a")
	f.Add([]byte("[assistant]\nhard_timeout = \"90s\"\n[sever]\n"), "HEARTH__SERVER=1")
	f.Add([]byte("a.b.c = 1\n\"server.port\" = 2\n"), "HEARTH____=")
	f.Fuzz(func(t *testing.T, data []byte, env string) {
		for _, name := range []string{"hearth.toml", "hearth.yaml"} {
			c, _, err := parse(name, data, nil, []string{env})
			if err != nil {
				continue
			}
			if err := c.Validate(); err != nil {
				t.Fatalf("Load accepted an invalid config: %v", err)
			}
			var out bytes.Buffer
			if err := c.Write(&out); err != nil {
				t.Fatalf("Write: %v", err)
			}
			again, _, err := parse("back.toml", out.Bytes(), nil, nil)
			if err != nil {
				t.Fatalf("Write's output does not load: %v\n%s", err, out.String())
			}
			for _, n := range RoleNames() {
				// Secrets come back masked, by design.
				if r := c.Models.role(n); r.APIKey != "" {
					r.APIKey = mask
				}
			}
			if !reflect.DeepEqual(c, again) {
				t.Fatalf("round trip changed the config:\n got %+v\nwant %+v", again, c)
			}
		}
	})
}
