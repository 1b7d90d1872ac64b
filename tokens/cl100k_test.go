package tokens

import (
	"bytes"
	"compress/gzip"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/dlclark/regexp2"
	"github.com/pkoukk/tiktoken-go"
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
	if n := len(got.off) - 1; n != len(want) {
		t.Fatalf("built-in ranks hold %d tokens, upstream %d", n, len(want))
	}
	for tok, r := range want {
		if g, ok := got.rank([]byte(tok)); !ok || g != r {
			t.Fatalf("token %q: built-in rank %d (present %v), upstream %d", tok, g, ok, r)
		}
		if g := string(got.token(r)); g != tok {
			t.Fatalf("rank %d: built-in token %q, upstream %q", r, g, tok)
		}
	}
	for _, b := range []string{"not a token at all, surely", "\x00\x00\x00\x00\x00\x00\x00\x00"} {
		if r, ok := got.rank([]byte(b)); ok {
			t.Errorf("%q has rank %d; it is no token", b, r)
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
		{"too many tokens", gz(bytes.Repeat([]byte{1, 'a'}, cl100kTokens+1)), "hold 100257 tokens"},
		{"duplicate token", gz(bytes.Repeat([]byte{1, 'a'}, cl100kTokens)), "ranks 0 and 1 are the same token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeRanks(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("decodeRanks: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// BenchmarkLoadCL100K is what CL100K costs the first time.
func BenchmarkLoadCL100K(b *testing.B) {
	for b.Loop() {
		if _, err := decodeRanks(cl100kRanks); err != nil {
			b.Fatal(err)
		}
		if _, err := regexp2.Compile(pattern, regexp2.None); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadTiktokenGo is what loading cl100k cost before: the
// upstream loader's ranks, then tiktoken-go's encoder built from them.
func BenchmarkLoadTiktokenGo(b *testing.B) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	for b.Loop() {
		if _, err := tiktoken.GetEncoding(tiktoken.MODEL_CL100K_BASE); err != nil {
			b.Fatal(err)
		}
	}
}
