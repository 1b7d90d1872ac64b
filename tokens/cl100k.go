package tokens

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"hash/maphash"
	"io"
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

// vocab is an encoding's tokens, held without pointers: the garbage
// collector never scans it. (tiktoken-go held the same ranks as three maps
// and a slice of slices, 11 MB and 300,000 pointers, most of a game
// process's live heap, which every collection marked.)
type vocab struct {
	data  []byte   // the tokens' bytes, in rank order
	off   []uint32 // token r is data[off[r]:off[r+1]]
	slots []uint32 // open addressing by hash: rank+1, 0 for empty
	mask  uint64
	seed  maphash.Seed
}

func (v *vocab) token(r int) []byte { return v.data[v.off[r]:v.off[r+1]] }

// rank returns b's rank, if b is a token.
func (v *vocab) rank(b []byte) (int, bool) {
	for i := maphash.Bytes(v.seed, b) & v.mask; ; i = (i + 1) & v.mask {
		s := v.slots[i]
		if s == 0 {
			return 0, false
		}
		if r := int(s - 1); bytes.Equal(v.token(r), b) {
			return r, true
		}
	}
}

// decodeRanks reads the compact form TestCL100KData writes.
func decodeRanks(gz []byte) (*vocab, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("read the built-in cl100k ranks: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("read the built-in cl100k ranks: %w", err)
	}
	v := &vocab{data: make([]byte, 0, len(raw)), off: make([]uint32, 1, cl100kTokens+1), seed: maphash.MakeSeed()}
	for len(raw) > 0 {
		n := int(raw[0])
		if n == 0 || 1+n > len(raw) {
			return nil, fmt.Errorf("built-in cl100k ranks are corrupt at rank %d", len(v.off)-1)
		}
		v.data = append(v.data, raw[1:1+n]...)
		v.off = append(v.off, uint32(len(v.data)))
		raw = raw[1+n:]
	}
	n := len(v.off) - 1
	if n != cl100kTokens {
		return nil, fmt.Errorf("built-in cl100k ranks hold %d tokens, want %d", n, cl100kTokens)
	}
	size := 1
	for size < 2*n {
		size *= 2
	}
	v.slots, v.mask = make([]uint32, size), uint64(size-1)
	for r := range n {
		t := v.token(r)
		i := maphash.Bytes(v.seed, t) & v.mask
		for ; v.slots[i] != 0; i = (i + 1) & v.mask {
			if bytes.Equal(v.token(int(v.slots[i]-1)), t) {
				return nil, fmt.Errorf("built-in cl100k ranks are corrupt: ranks %d and %d are the same token", v.slots[i]-1, r)
			}
		}
		v.slots[i] = uint32(r + 1)
	}
	return v, nil
}
