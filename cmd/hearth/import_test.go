package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// cardPNG is a real PNG with the repository's sample card in a ccv3 chunk.
func cardPNG(t *testing.T) []byte {
	t.Helper()
	card, err := os.ReadFile("../../charcard/testdata/wren_card_v3.json")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	text := append([]byte("ccv3\x00"), base64.StdEncoding.EncodeToString(card)...)
	var c bytes.Buffer
	_ = binary.Write(&c, binary.BigEndian, uint32(len(text)))
	c.WriteString("tEXt")
	c.Write(text)
	_ = binary.Write(&c, binary.BigEndian, crc32.ChecksumIEEE(append([]byte("tEXt"), text...)))
	return append(append(bytes.Clone(b[:len(b)-12]), c.Bytes()...), b[len(b)-12:]...)
}

func TestImportCard(t *testing.T) {
	dir := t.TempDir()
	camp := filepath.Join(dir, "saltmere")
	if err := os.CopyFS(camp, os.DirFS(saltmere)); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "wren.png")
	if err := os.WriteFile(file, cardPNG(t), 0o644); err != nil {
		t.Fatal(err)
	}

	// An NPC needs a place: a clear usage error, exit status 2.
	cmd := exec.Command(hearthBin, "import", "card", file, "--campaign", camp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var exit *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), "quay") {
		t.Fatalf("import without --location: %v\n%s", err, stderr.String())
	}

	out := run(t, nil, "import", "card", file, "--campaign", camp, "--location", "quay")
	for _, want := range []string{`as npc "wren_halloway"`, "wrote npc_wren_halloway.md", "wrote lorebooks/wren_halloway.json", "not imported: system_prompt"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out = run(t, nil, "pack", "info", camp)
	if !regexp.MustCompile(`lorebooks:\s+1\n`).MatchString(out) {
		t.Errorf("pack info:\n%s", out)
	}
	// Offline play meets her on the quay, greeting and all.
	out = run(t, strings.NewReader("talk to wren\n"), "play", "--campaign", camp, "--new", "--seed", "3", "--data", t.TempDir())
	if !strings.Contains(out, "Mind the nets, traveller") {
		t.Errorf("the imported NPC does not greet the player:\n%s", out)
	}
}
