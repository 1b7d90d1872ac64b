package tokens

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"path"
)

// cl100kRanks is the cl100k_base encoding's ranks in a compact form: the
// 100,256 tokens in rank order, each its length in one byte then its
// bytes, gzipped (455 KiB; the upstream base64 text is 1.6 MiB, and the
// loader module it comes from embeds three more encodings, 5.1 MiB, that
// Hearth never uses). TestCL100KData checks it against the upstream file
// and rewrites it with -update.
//
//go:embed cl100k.bin.gz
var cl100kRanks []byte

// cl100kTokens is the number of ordinary tokens in cl100k_base.
const cl100kTokens = 100256

// loader gives tiktoken-go the cl100k ranks from cl100kRanks; it knows no
// other encoding.
type loader struct{}

func (loader) LoadTiktokenBpe(file string) (map[string]int, error) {
	if name := path.Base(file); name != "cl100k_base.tiktoken" {
		return nil, fmt.Errorf("token encoding %s is not built in; only cl100k_base is", name)
	}
	return decodeRanks(cl100kRanks)
}

// decodeRanks reads the compact form written by encodeRanks.
func decodeRanks(gz []byte) (map[string]int, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("read the built-in cl100k ranks: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("read the built-in cl100k ranks: %w", err)
	}
	ranks := make(map[string]int, cl100kTokens)
	for len(raw) > 0 {
		n := int(raw[0])
		if n == 0 || 1+n > len(raw) {
			return nil, fmt.Errorf("built-in cl100k ranks are corrupt at rank %d", len(ranks))
		}
		ranks[string(raw[1:1+n])] = len(ranks)
		raw = raw[1+n:]
	}
	if len(ranks) != cl100kTokens {
		return nil, fmt.Errorf("built-in cl100k ranks hold %d tokens, want %d", len(ranks), cl100kTokens)
	}
	return ranks, nil
}
