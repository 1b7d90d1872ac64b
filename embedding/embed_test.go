package embedding

import (
	"math"
	"testing"
)

func TestDot(t *testing.T) {
	tests := []struct {
		name string
		a, b []float32
		want float32
	}{
		{"empty", nil, nil, 0},
		{"one", []float32{2}, []float32{3}, 6},
		{"unrolled and tail", []float32{1, 2, 3, 4, 5, 6, 7}, []float32{7, 6, 5, 4, 3, 2, 1}, 84},
		{"orthogonal", []float32{1, 0, 0, 0}, []float32{0, 1, 0, 0}, 0},
		{"shorter b uses common length", []float32{1, 1, 1, 1, 1}, []float32{2, 2}, 4},
	}
	for _, tt := range tests {
		if got := Dot(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: Dot = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	v := []float32{3, 4}
	Normalize(v)
	if math.Abs(float64(v[0])-0.6) > 1e-6 || math.Abs(float64(v[1])-0.8) > 1e-6 {
		t.Errorf("Normalize(3,4) = %v, want (0.6, 0.8)", v)
	}
	zero := []float32{0, 0, 0}
	Normalize(zero)
	for _, x := range zero {
		if x != 0 {
			t.Fatalf("Normalize(zero) = %v, want zeros", zero)
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	v := []float32{0, 1, -1, 3.25, float32(math.Inf(1)), math.SmallestNonzeroFloat32}
	b := Encode(v)
	if len(b) != 4*len(v) {
		t.Fatalf("Encode gave %d bytes, want %d", len(b), 4*len(v))
	}
	// Little-endian IEEE 754: 1.0 is 00 00 80 3f.
	if got := b[4:8]; got[0] != 0 || got[1] != 0 || got[2] != 0x80 || got[3] != 0x3f {
		t.Errorf("1.0 encoded as % x, want 00 00 80 3f", got)
	}
	got, err := Decode([]float32{9}, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1+len(v) || got[0] != 9 {
		t.Fatalf("Decode did not append to dst: %v", got)
	}
	for i := range v {
		if got[i+1] != v[i] {
			t.Errorf("element %d: got %v, want %v", i, got[i+1], v[i])
		}
	}
	if _, err := Decode(nil, []byte{1, 2, 3}); err == nil {
		t.Error("Decode of 3 bytes succeeded, want error")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0x80, 0x3f})
	f.Add([]byte{1, 2, 3, 4, 5})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Decode(nil, b)
		if err != nil {
			if len(b)%4 == 0 {
				t.Fatalf("Decode(%d bytes) failed: %v", len(b), err)
			}
			return
		}
		if back := Encode(v); string(back) != string(b) {
			t.Fatalf("Encode(Decode(b)) = % x, want % x", back, b)
		}
	})
}

func BenchmarkDot384(b *testing.B) {
	x, y := make([]float32, 384), make([]float32, 384)
	for i := range x {
		x[i], y[i] = float32(i%7)/7, float32(i%5)/5
	}
	var s float32
	for b.Loop() {
		s += Dot(x, y)
	}
	_ = s
}
