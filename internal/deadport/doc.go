// Package deadport gives tests a loopback TCP address that refuses
// connections and that nothing else can take while the test runs. A
// listener closed before the dial leaves its port free for another
// package's test to take in between; this holds a socket bound to the
// port that never listens, so a dial is refused and a bind fails.
package deadport
