package lorebook

import "hash/fnv"

// roll returns a number in [0, 1) that depends only on the seed, the turn
// and what is being decided. Each decision draws its own number, so a
// probability roll or a group draw does not change when unrelated entries
// are added, removed or reordered; and the same inputs always decide the
// same way.
func roll(seed uint64, turn int, what string, n int) float64 {
	h := fnv.New64a()
	h.Write([]byte(what))
	x := seed ^ h.Sum64()
	x = splitmix(x ^ uint64(int64(turn))*0x9e3779b97f4a7c15)
	x = splitmix(x ^ uint64(int64(n)))
	return float64(x>>11) / (1 << 53)
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
