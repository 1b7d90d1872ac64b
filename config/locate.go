package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FileName is the configuration file inside the user's configuration
// directory ($XDG_CONFIG_HOME/hearth, ~/.config/hearth on Linux).
const FileName = "config.toml"

// legacyServerFile is the server's configuration file in the working
// directory before there was one configuration for every command.
const legacyServerFile = "hearth.toml"

// DefaultPath is where Hearth looks for its configuration file when no
// --config is given: $HEARTH_CONFIG, else config.toml in the user's
// configuration directory. environ is as os.Environ gives it.
func DefaultPath(environ []string) string {
	if p := lookup(environ, "HEARTH_CONFIG"); p != "" {
		return p
	}
	dir := userConfigDir(environ)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "hearth", FileName)
}

// locate chooses the file Load reads and says whether the caller named it.
// Without a name it tries, in order: $HEARTH_CONFIG; config.toml,
// config.yaml and config.yml in the user's configuration directory; and
// the old ./hearth.toml, which is read with a notice telling the user to
// move it.
func locate(path string, environ []string) (file string, explicit bool, notices []string) {
	if path != "" {
		return path, true, nil
	}
	if p := lookup(environ, "HEARTH_CONFIG"); p != "" {
		return p, true, nil
	}
	if dir := userConfigDir(environ); dir != "" {
		for _, name := range []string{FileName, "config.yaml", "config.yml"} {
			p := filepath.Join(dir, "hearth", name)
			if _, err := os.Stat(p); err == nil {
				return p, false, nil
			}
		}
	}
	if _, err := os.Stat(legacyServerFile); err == nil {
		return legacyServerFile, false, []string{fmt.Sprintf(
			"read ./%s from the working directory; Hearth now reads one file for every command: move it to %s (the keys are the same) or pass --config %s",
			legacyServerFile, orDefault(DefaultPath(environ)), legacyServerFile)}
	}
	return DefaultPath(environ), false, nil
}

func orDefault(p string) string {
	if p == "" {
		return "$XDG_CONFIG_HOME/hearth/" + FileName
	}
	return p
}

// userConfigDir is os.UserConfigDir over environ instead of the process's
// environment, so tests and embedders can choose it.
func userConfigDir(environ []string) string {
	switch runtime.GOOS {
	case "windows":
		return lookup(environ, "AppData")
	case "darwin":
		if h := lookup(environ, "HOME"); h != "" {
			return filepath.Join(h, "Library", "Application Support")
		}
		return ""
	}
	if d := lookup(environ, "XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return d
	}
	if h := lookup(environ, "HOME"); h != "" {
		return filepath.Join(h, ".config")
	}
	return ""
}

// DefaultDataDir is where Hearth keeps its data when storage.data_dir is
// not configured: $HEARTH_DATA if set, else $XDG_DATA_HOME/hearth or
// ~/.local/share/hearth on Linux and other Unix systems,
// ~/Library/Application Support/Hearth on macOS, %LocalAppData%\Hearth on
// Windows. The second result names where the choice came from.
func DefaultDataDir(environ []string) (dir, origin string, err error) {
	if d := lookup(environ, "HEARTH_DATA"); d != "" {
		return d, "HEARTH_DATA", nil
	}
	home := lookup(environ, "HOME")
	switch runtime.GOOS {
	case "windows":
		if d := lookup(environ, "LocalAppData"); d != "" {
			return filepath.Join(d, "Hearth"), "default", nil
		}
	case "darwin":
		if home != "" {
			return filepath.Join(home, "Library", "Application Support", "Hearth"), "default", nil
		}
	default:
		if d := lookup(environ, "XDG_DATA_HOME"); d != "" {
			return filepath.Join(d, "hearth"), "default", nil
		}
		if home != "" {
			return filepath.Join(home, ".local", "share", "hearth"), "default", nil
		}
	}
	return "", "", errors.New("no home directory to keep data in; set HEARTH_DATA or storage.data_dir")
}

// lookup is os.Getenv over environ; the first of duplicates counts.
func lookup(environ []string, name string) string {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// legacyModelKeys are the top-level keys of the old model configuration
// (~/.config/hearth/config.yaml with roles:), mapped to their keys now.
var legacyModelKeys = map[string]string{
	"pipeline": "models.pipeline", "prompts": "models.prompts", "prompt_versions": "models.prompt_versions",
	"context_budget": "models.context_budget", "timeout": "models.timeout",
}

// fromLegacy rewrites the old model configuration's layout (roles.NAME.*
// and the model keys at the top) to the keys of Config. It reports
// whether raw was in that layout.
func fromLegacy(raw map[string]any) (map[string]any, bool) {
	roles, ok := raw["roles"].(map[string]any)
	if !ok {
		return raw, false
	}
	models := map[string]any{}
	for name, r := range roles {
		models[name] = r
	}
	out := map[string]any{}
	for k, v := range raw {
		switch {
		case k == "roles":
		case legacyModelKeys[k] != "":
			models[strings.TrimPrefix(legacyModelKeys[k], "models.")] = v
		default:
			out[k] = v
		}
	}
	if prev, ok := out["models"].(map[string]any); ok {
		for k, v := range prev {
			if _, set := models[k]; !set {
				models[k] = v
			}
		}
	}
	out["models"] = models
	return out, true
}

// keyLine finds the line of key in a TOML or YAML file, for messages; 0
// when it cannot be found (a key written as an inline table, say).
func keyLine(data []byte, key string, isYAML bool) int {
	if isYAML {
		var root yaml.Node
		if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 {
			return 0
		}
		n := root.Content[0]
		line := 0
		for _, part := range strings.Split(key, ".") {
			found := false
			for i := 0; n != nil && n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == part || (part == "models" && n.Content[i].Value == "roles") {
					line, n, found = n.Content[i].Line, n.Content[i+1], true
					break
				}
			}
			if !found {
				return line
			}
		}
		return line
	}
	section, name := "", key
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		section, name = key[:i], key[i+1:]
	}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "[") && !strings.HasPrefix(l, "[[") {
			cur = strings.Trim(strings.TrimSpace(strings.SplitN(l, "#", 2)[0]), "[] ")
			if cur == key {
				return n
			}
			continue
		}
		k, _, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		k = strings.Trim(strings.TrimSpace(k), `"`)
		if (cur == section && k == name) || (cur == "" && k == key) || (cur != "" && cur+"."+k == key) {
			return n
		}
	}
	return 0
}
