package tokens

import (
	"bytes"
	"compress/gzip"
	"flag"
	"os"
	"strings"
	"testing"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

var update = flag.Bool("update", false, "rewrite cl100k.bin.gz from the upstream encoding")

// upstream is cl100k_base as tiktoken-go-loader ships it (a test-only
// dependency: the binary carries cl100k.bin.gz instead).
func upstream(t *testing.T) map[string]int {
	t.Helper()
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe("https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken")
	if err != nil {
		t.Fatal(err)
	}
	return ranks
}

// encodeRanks writes the compact form decodeRanks reads: tokens in rank
// order, each its length in one byte then its bytes, gzipped.
func encodeRanks(t *testing.T, ranks map[string]int) []byte {
	t.Helper()
	byRank := make([]string, len(ranks))
	for tok, r := range ranks {
		if r < 0 || r >= len(ranks) || byRank[r] != "" {
			t.Fatalf("ranks are not 0..%d, each once (rank %d)", len(ranks)-1, r)
		}
		if len(tok) == 0 || len(tok) > 255 {
			t.Fatalf("token of rank %d is %d bytes; the compact form holds 1 to 255", r, len(tok))
		}
		byRank[r] = tok
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range byRank {
		zw.Write([]byte{byte(len(tok))})
		zw.Write([]byte(tok))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCL100KData checks the built-in ranks against the upstream
// encoding, token by token.
func TestCL100KData(t *testing.T) {
	want := upstream(t)
	if *update {
		if err := os.WriteFile("cl100k.bin.gz", encodeRanks(t, want), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("wrote cl100k.bin.gz")
		return
	}
	got, err := decodeRanks(cl100kRanks)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("built-in ranks hold %d tokens, upstream %d", len(got), len(want))
	}
	for tok, r := range want {
		if g, ok := got[tok]; !ok || g != r {
			t.Fatalf("token %q: built-in rank %d (present %v), upstream %d", tok, g, ok, r)
		}
	}
}

func TestDecodeRanksRejectsCorruptData(t *testing.T) {
	gz := func(raw []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(raw)
		zw.Close()
		return buf.Bytes()
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"not gzip", []byte("IQ== 0\n"), "read the built-in cl100k ranks"},
		{"truncated token", gz([]byte{3, 'a', 'b'}), "corrupt at rank 0"},
		{"zero length", gz([]byte{1, 'a', 0}), "corrupt at rank 1"},
		{"too few tokens", gz([]byte{1, 'a', 1, 'b'}), "hold 2 tokens"},
		{"duplicate token", gz([]byte{1, 'a', 1, 'a'}), "hold 1 tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeRanks(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("decodeRanks: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestLoaderKnowsOnlyCL100K(t *testing.T) {
	if _, err := (loader{}).LoadTiktokenBpe("https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"); err == nil || !strings.Contains(err.Error(), "only cl100k_base") {
		t.Fatalf("o200k: %v, want an error saying only cl100k_base is built in", err)
	}
}

func BenchmarkLoadCL100K(b *testing.B) {
	for b.Loop() {
		if _, err := decodeRanks(cl100kRanks); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadCL100KUpstream(b *testing.B) {
	l := tiktoken_loader.NewOfflineLoader()
	for b.Loop() {
		if _, err := l.LoadTiktokenBpe("cl100k_base.tiktoken"); err != nil {
			b.Fatal(err)
		}
	}
}
